package org.kafscale.proxy.routing.engine;

import org.kafscale.proxy.core.backend.BackendException;
import org.kafscale.proxy.core.codec.ClientBackoff;

/**
 * What the proxy retries on the client's behalf, and how often.
 *
 * <ul>
 *   <li>Leader class ({@link org.kafscale.proxy.core.backend.BrokerErrors#isLeaderClass}: the
 *       partition moved): drop the route, retry on the current owner, never the same broker twice
 *       for one partition in one request.</li>
 *   <li>Connection class (connect failure, closed connection, timeout, an answer that does not
 *       parse): the channel is closed and never reused; the retry goes to a fresh one. Reads are
 *       always safe to repeat; a Produce only when it was never written or its batches carry a
 *       producer id (the broker then drops duplicates).</li>
 * </ul>
 *
 * <p>Backoff is kafka-clients' own exponential backoff ({@link ClientBackoff}): 25 ms, then 50 ms, each with 20 %
 * jitter, so the many connections that hit one moved partition at once do not retry in lock-step
 * against the new leader and etcd.
 */
public final class RetryPolicy {
    /** Attempts per request, the first included. */
    public static final int MAX_ATTEMPTS = 3;
    private static final ClientBackoff BACKOFF = new ClientBackoff(25, 2, 400, 0.2);

    private RetryPolicy() {
    }

    /** Pause before attempt {@code attempt} (1-based; the first has none): about 25 ms, then 50 ms. */
    public static long backoffMillis(int attempt) {
        return attempt <= 1 ? 0 : BACKOFF.millis(attempt - 2);
    }

    /** The proxy closed the channel itself because the client went away: nothing to retry or report. */
    public static boolean cancelled(Throwable failure) {
        return BackendException.cancelled(failure);
    }

    /** Whether a failed exchange may be sent again: always for reads; for writes only when never written. */
    public static boolean mayResend(Throwable failure, boolean isWrite) {
        if (!(failure instanceof BackendException backend) || cancelled(failure)
                || backend.failure() == BackendException.Cause.AUTHENTICATION_FAILED) {
            // A refused password is refused again: the client hears of it at once.
            return false;
        }
        return !isWrite || !backend.requestWritten();
    }
}
