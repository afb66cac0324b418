package org.kafscale.proxy.lfs.s3;

import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.http.LfsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * The answer to a failed S3 call. The upload-failure mapping is shared by the two ways of
 * uploading an object ({@link StreamedPut}, {@link StreamingUpload}) and the multipart API.
 */
public final class S3Failures {
    private static final Logger LOGGER = LoggerFactory.getLogger(S3Failures.class);
    private static final RateLimitedLog FAILED = RateLimitedLog.every10Seconds(LOGGER);

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
        return uploadFailed("S3 upload failed", e);
    }

    /** 502 {@code s3_upload_failed} for {@code what}, logged with S3's full text (rate-limited). */
    public static LfsException uploadFailed(String what, Throwable error) {
        Throwable cause = Async.unwrap(error);
        FAILED.warn("{}: {}", what, String.valueOf(cause));
        return new LfsException(502, "s3_upload_failed", what + ": " + describe(cause), cause);
    }

    /**
     * What a client may read of an S3 failure: S3's status and error code. The SDK's own text
     * names request ids, hosts and the SDK's internals, so it goes to the log only.
     */
    public static String describe(Throwable error) {
        Throwable cause = Async.unwrap(error);
        if (cause instanceof AwsServiceException e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            return "S3 answered " + e.statusCode() + (code == null ? "" : " " + code);
        }
        if (cause instanceof SdkClientException) {
            return "S3 could not be reached";
        }
        return "unexpected " + cause.getClass().getSimpleName();
    }
}
