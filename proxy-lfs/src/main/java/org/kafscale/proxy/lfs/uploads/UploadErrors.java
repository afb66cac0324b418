package org.kafscale.proxy.lfs.uploads;

import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.s3.S3Failures;

/** The multipart API's errors (spec §4.4 and §4.6), built in one place so codes stay consistent. */
final class UploadErrors {

    private UploadErrors() {
    }

    static LfsException notFound(String id) {
        return new LfsException(404, "upload_not_found", "upload " + id + " not found");
    }

    static LfsException expired(String id) {
        return new LfsException(410, "upload_expired", "upload " + id + " expired");
    }

    static LfsException invalidPart(String message) {
        return LfsException.badRequest("invalid_part", message);
    }

    /** A part's body broke off before its last byte (client gone, read timeout). */
    static LfsException partBroken(Throwable cause) {
        return new LfsException(400, "invalid_part", "the part body did not arrive whole: " + cause, cause);
    }

    static LfsException outOfOrder(int expected, int got) {
        return new LfsException(409, "out_of_order", "expected part " + expected + ", got part " + got);
    }

    /** An addition to the spec's codes: a recorded part sent again with other bytes. */
    static LfsException partConflict(int partNumber) {
        return new LfsException(409, "part_conflict",
                "part " + partNumber + " was already uploaded with a different body");
    }

    /** An addition to the spec's codes: another request is completing (or completed) this upload. */
    static LfsException completing(String id) {
        return new LfsException(409, "upload_completing", "upload " + id + " is being completed by another request");
    }

    static LfsException s3Failed(String what, Throwable cause) {
        return S3Failures.uploadFailed(what, cause);
    }

    /**
     * The failure to answer: an {@link LfsException} as it is, an unreachable session store as
     * 503 {@code session_store_unavailable} (an addition to the spec's codes: the original had no
     * store to lose), anything else unchanged (the router answers 500).
     */
    static Throwable translate(Throwable failure) {
        LfsException known = LfsException.unwrap(failure);
        if (known != null) {
            return known;
        }
        Throwable cause = Async.unwrap(failure);
        if (cause instanceof SessionStoreException) {
            return new LfsException(503, "session_store_unavailable", cause.getMessage(), cause);
        }
        return cause;
    }
}
