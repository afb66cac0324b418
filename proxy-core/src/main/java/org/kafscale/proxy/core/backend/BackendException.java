package org.kafscale.proxy.core.backend;

/**
 * A request to a broker failed below the Kafka protocol: the connection could not be made, it
 * closed, it timed out, or the answer did not parse. The channel involved is closed and never
 * reused.
 */
public final class BackendException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why the request failed, which decides whether it may be retried. */
    public enum Cause {
        CONNECT_FAILED, CONNECTION_CLOSED, TIMED_OUT, BAD_RESPONSE,
        /** The TLS handshake with the broker failed (untrusted or misnamed certificate, protocol mismatch). */
        TLS_FAILED,
        /** The broker refused the proxy's SASL authentication: a setting to fix, not a request to retry. */
        AUTHENTICATION_FAILED,
        /** The proxy closed the channel itself (the client went away, shutdown): nothing to retry. */
        CANCELLED
    }

    private final Cause cause;
    private final boolean requestWritten;

    public BackendException(Cause cause, boolean requestWritten, String message) {
        super(message, null, false, false);
        this.cause = cause;
        this.requestWritten = requestWritten;
    }

    public Cause failure() {
        return cause;
    }

    /**
     * Whether the request may have reached the broker. A request that was never written can be
     * sent again without risk of applying it twice.
     */
    public boolean requestWritten() {
        return requestWritten;
    }

    /** The proxy closed the channel itself because the client went away: nothing to retry or report. */
    public static boolean cancelled(Throwable failure) {
        return failure instanceof BackendException backend && backend.cause == Cause.CANCELLED;
    }
}
