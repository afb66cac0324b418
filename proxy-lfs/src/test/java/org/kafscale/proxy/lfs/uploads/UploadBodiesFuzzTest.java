package org.kafscale.proxy.lfs.uploads;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Duration;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.testkit.ThreadAllocation;

/**
 * Coverage-guided fuzzing of the JSON the upload API reads: the {@code POST /lfs/uploads} body
 * ({@link InitRequest}), the complete body ({@link CompleteRequest}) and a stored session as read
 * back from etcd or S3 ({@link UploadSessionCodec}).
 *
 * <p>Documented outcomes: an init body parses or throws {@link LfsException} (a 400 with its
 * code); a complete body never throws (its problem is kept for later); a stored session decodes
 * or throws {@link IllegalArgumentException}. Allocation stays in proportion to the body.
 */
class UploadBodiesFuzzTest {
    private static final UploadSettings SETTINGS = new UploadSettings("b", "p", Duration.ofHours(1), 5L << 20,
            5L << 30, 249, ChecksumAlg.SHA256);
    private static final int ALLOCATION_PER_BYTE = 512;
    private static final int ALLOCATION_BASE_BYTES = 1 << 20;

    @FuzzTest
    void uploadBodiesParseOrGetTheirDocumentedError(FuzzedDataProvider data) {
        int which = data.consumeInt(0, 2);
        byte[] json = data.consumeRemainingAsBytes();
        ThreadAllocation.assertAtMost(ALLOCATION_BASE_BYTES + (long) ALLOCATION_PER_BYTE * json.length,
                "upload body " + which + " of " + json.length + " bytes", () -> parse(which, json));
    }

    private static void parse(int which, byte[] json) {
        switch (which) {
            case 0 -> {
                try {
                    InitRequest.parse(json, SETTINGS).keyBytes();
                } catch (LfsException documented) {
                    // answered 400 with the exception's code
                }
            }
            case 1 -> CompleteRequest.parse(json);
            default -> {
                try {
                    UploadSessionCodec.decode(json);
                } catch (IllegalArgumentException documented) {
                    // an unreadable session is reported as such
                }
            }
        }
    }
}
