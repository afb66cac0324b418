package org.kafscale.proxy.lfs.resolve;

import org.apache.kafka.common.protocol.Errors;

/**
 * Why an envelope's payload cannot be delivered; its partition answers {@link #error} with no
 * records. {@code reason} is the label of {@code kafscale_lfs_proxy_fetch_resolve_failures_total}.
 */
final class ResolveFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    enum Reason {
        /** S3 could not be asked or failed to answer: retriable, the consumer asks again. */
        S3_UNAVAILABLE("s3_unavailable", Errors.KAFKA_STORAGE_ERROR),
        /** The proxy is out of blocking threads for now: retriable. */
        BUSY("busy", Errors.KAFKA_STORAGE_ERROR),
        /** No object under the envelope's key. */
        MISSING("missing", Errors.CORRUPT_MESSAGE),
        /** The object is not the envelope's size. */
        SIZE("size", Errors.CORRUPT_MESSAGE),
        /** The object's bytes are not the envelope's SHA-256: changed after it was written. */
        SHA256("sha256", Errors.CORRUPT_MESSAGE),
        /** The envelope points outside this proxy's bucket or the topic's keys. */
        FOREIGN("foreign_object", Errors.CORRUPT_MESSAGE);

        final String label;
        final Errors error;

        Reason(String label, Errors error) {
            this.label = label;
            this.error = error;
        }
    }

    final Reason reason;

    ResolveFailure(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    Errors error() {
        return reason.error;
    }
}
