package org.kafscale.proxy.lfs.uploads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.LfsException;

/** The review's L6 and L9 probes of {@code POST /lfs/uploads} and its complete body. */
class UploadRequestsTest {
    private static final UploadSettings SETTINGS = new UploadSettings("b", "p", Duration.ofHours(1), 5L << 20,
            5L << 30, 249, ChecksumAlg.SHA256);

    private static String init(String sizeBytes, String extra) {
        return "{\"topic\":\"t\",\"content_type\":\"video/mp4\",\"size_bytes\":" + sizeBytes + extra + "}";
    }

    private static String code(String json) {
        return assertThrows(LfsException.class,
                () -> InitRequest.parse(json.getBytes(StandardCharsets.UTF_8), SETTINGS)).code();
    }

    @Test
    void aSizeBeyondSixtyFourBitsIsRefusedNotWrapped() {
        // 2^64 + 6 MiB: Jackson's asLong wraps it to 6 MiB
        assertEquals("invalid_size", code(init("18446744073715843072", "")));
    }

    @Test
    void aQuotedOrFractionalSizeIsRefused() {
        assertEquals("invalid_size", code(init("\"6291456\"", "")));
        assertEquals("invalid_size", code(init("6291456.5", "")));
    }

    @Test
    void aFractionalPartitionIsRefused() {
        assertEquals("invalid_partition", code(init("6291456", ",\"partition\":1.0")));
        assertEquals("invalid_partition", code(init("6291456", ",\"partition\":4294967296")));
    }

    @Test
    void aWholeSizeAndPartitionAreTaken() {
        InitRequest request = InitRequest.parse(init("6291456", ",\"partition\":1").getBytes(StandardCharsets.UTF_8),
                SETTINGS);
        assertEquals(6291456, request.sizeBytes());
        assertEquals(1, request.partition().getAsInt());
    }

    @Test
    void aContentTypeWithALineBreakIsAClientError() {
        LfsException error = assertThrows(LfsException.class, () -> InitRequest.parse(
                "{\"topic\":\"t\",\"content_type\":\"text/plain\\r\\nX-Injected: 1\",\"size_bytes\":1}"
                        .getBytes(StandardCharsets.UTF_8), SETTINGS));
        assertEquals(400, error.status());
        assertEquals("invalid_request", error.code());
    }

    @Test
    void aFractionalPartNumberInTheCompleteBodyIsRefused() {
        CompleteRequest request = CompleteRequest.parse(
                "{\"parts\":[{\"part_number\":1.0,\"etag\":\"e\"}]}".getBytes(StandardCharsets.UTF_8));
        assertEquals("invalid_request", assertThrows(LfsException.class, request::parts).code());
    }
}
