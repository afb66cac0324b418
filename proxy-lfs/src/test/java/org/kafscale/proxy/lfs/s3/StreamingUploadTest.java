package org.kafscale.proxy.lfs.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.checksum.PayloadDigests;
import org.kafscale.proxy.lfs.http.LfsException;

class StreamingUploadTest {

    @Test
    void aBodyThatBreaksOffBeforeAnyPartFailsAsInvalidReaderWithoutTouchingS3() {
        // No S3 client and no exchange: nothing may be called before the first part is full.
        StreamingUpload upload = new StreamingUpload(null, "b", "k", 5 << 20, 1 << 30, null,
                new PayloadDigests(ChecksumAlg.SHA256), Runnable::run);

        upload.onAbort(new IOException("connection reset"));

        CompletionException e = assertThrows(CompletionException.class, () -> upload.result().join());
        assertEquals("invalid_reader", LfsException.unwrap(e).code());
    }

    @Test
    void anEmptyBodyFailsAsEmptyUpload() {
        StreamingUpload upload = new StreamingUpload(null, "b", "k", 5 << 20, 1 << 30, null,
                new PayloadDigests(ChecksumAlg.SHA256), Runnable::run);

        upload.onEnd();

        assertEquals("empty_upload", LfsException.unwrap(assertThrows(CompletionException.class,
                () -> upload.result().join())).code());
    }
}
