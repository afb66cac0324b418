package org.kafscale.proxy.fetch.routing;

import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BackendException;

/**
 * What the proxy retries on the client's behalf, and how often.
 *
 * <ul>
 *   <li>Leader class (the partition moved): drop the route, retry on the current owner, never the
 *       same broker twice for one partition in one request.</li>
 *   <li>Connection class (connect failure, closed connection, timeout, an answer that does not
 *       parse): the channel is closed and never reused; the retry goes to a fresh one. Reads are
 *       always safe to repeat; a Produce only when it was never written or its batches carry a
 *       producer id (the broker then drops duplicates).</li>
 * </ul>
 */
public final class RetryPolicy {
    /** Attempts per request, the first included. */
    public static final int MAX_ATTEMPTS = 3;
    private static final long FIRST_BACKOFF_MILLIS = 25;

    /** Kafka's leader class. */
    public static final Set<Errors> LEADER_CLASS = EnumSet.of(Errors.NOT_LEADER_OR_FOLLOWER,
            Errors.LEADER_NOT_AVAILABLE, Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH);

    private RetryPolicy() {
    }

    public static boolean isLeaderClass(short errorCode) {
        return LEADER_CLASS.contains(Errors.forCode(errorCode));
    }

    /** Pause before attempt {@code attempt} (1-based; the first has none): 25 ms, then 50 ms. */
    public static long backoffMillis(int attempt) {
        return attempt <= 1 ? 0 : FIRST_BACKOFF_MILLIS << (attempt - 2);
    }

    /** The proxy closed the channel itself because the client went away: nothing to retry or report. */
    public static boolean cancelled(Throwable failure) {
        return failure instanceof BackendException backend && backend.failure() == BackendException.Cause.CANCELLED;
    }

    /** Whether a failed exchange may be sent again: always for reads; for writes only when never written. */
    public static boolean mayResend(Throwable failure, boolean isWrite) {
        if (!(failure instanceof BackendException backend) || cancelled(failure)) {
            return false;
        }
        return !isWrite || !backend.requestWritten();
    }
}
