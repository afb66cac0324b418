package org.kafscale.proxy.core.quota;

import java.util.concurrent.TimeUnit;

/**
 * Holds bytes to a rate, and says how long a holder that went past it must wait. The meter keeps
 * the time at which the bytes counted so far would all have been sent at the rate (the virtual
 * clock of the generic cell rate algorithm); a client may run up to one {@link #BURST} ahead of
 * it, and past that it is throttled for the difference. Over any span the bytes let through stay
 * within the rate plus one burst, however the client spreads them, which a rate averaged over
 * sample windows (Kafka's broker) only approaches.
 *
 * <p>Shared by every connection of its holder, on every event loop: the clock is a single field
 * updated under the meter's lock, a few nanoseconds per request.
 */
final class ByteRateMeter {
    /** How far ahead of its rate a client may run before it is throttled: one second's worth. */
    static final long BURST = TimeUnit.SECONDS.toNanos(1);

    private final long bytesPerSecond;
    /** When the bytes counted so far are due at the rate; meaningful once something was counted. */
    private long dueNanos;
    private boolean counted;

    ByteRateMeter(long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("a meter needs a positive rate");
        }
        this.bytesPerSecond = bytesPerSecond;
    }

    /**
     * Counts {@code bytes} at {@code nowNanos}; how long, in nanoseconds, the holder must now wait
     * to be back within its rate and burst (0 when it is within).
     */
    synchronized long count(long bytes, long nowNanos) {
        if (!counted || dueNanos - nowNanos < 0) {
            dueNanos = nowNanos;
            counted = true;
        }
        // bytes is at most a frame (below 2^31), so bytes * 1e9 stays within a long.
        dueNanos += bytes * 1_000_000_000L / bytesPerSecond;
        long ahead = dueNanos - nowNanos - BURST;
        return Math.max(0, ahead);
    }
}
