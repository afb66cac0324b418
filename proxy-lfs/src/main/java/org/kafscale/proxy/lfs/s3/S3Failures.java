package org.kafscale.proxy.lfs.s3;

import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.http.LfsException;

/** The answer to a failed object upload, shared by its two ways ({@link StreamedPut}, {@link StreamingUpload}). */
final class S3Failures {
    private S3Failures() {
    }

    /**
     * An {@link LfsException} raised on the way (the client's body broke off, say) as it is;
     * anything else is S3's failure: 502 {@code s3_upload_failed}.
     */
    static LfsException asLfs(Throwable e) {
        LfsException known = LfsException.unwrap(e);
        if (known != null) {
            return known;
        }
        Throwable cause = Async.unwrap(e);
        return new LfsException(502, "s3_upload_failed", "S3 upload failed: " + cause.getMessage(), cause);
    }
}
