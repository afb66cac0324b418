package org.kafscale.proxy.core.quota;

import java.util.concurrent.TimeUnit;

/**
 * Holds an amount (bytes, or nanoseconds of loop time) to a rate, and says how long a holder that
 * went past it must wait. The meter keeps the time at which the amount counted so far would all
 * have been used at the rate (the virtual clock of the generic cell rate algorithm); a client may
 * run up to one {@link #BURST} ahead of it, and past that it is throttled for the difference. Over
 * any span what is let through stays within the rate plus one burst, however the client spreads
 * it, which a rate averaged over sample windows (Kafka's broker) only approaches.
 *
 * <p>Shared by every connection of its holder, on every event loop: the clock is a single field
 * updated under the meter's lock, a few nanoseconds per request.
 */
final class RateMeter {
    /** How far ahead of its rate a client may run before it is throttled: one second's worth. */
    static final long BURST = TimeUnit.SECONDS.toNanos(1);
    /** The most one count takes: so that amount * 1e9 stays within a long. */
    private static final long MAX_AMOUNT = Integer.MAX_VALUE;

    private final long perSecond;
    /** When the amount counted so far is due at the rate; meaningful once something was counted. */
    private long dueNanos;
    private boolean counted;

    RateMeter(long perSecond) {
        if (perSecond <= 0) {
            throw new IllegalArgumentException("a meter needs a positive rate");
        }
        this.perSecond = perSecond;
    }

    /**
     * Counts {@code amount} at {@code nowNanos}; how long, in nanoseconds, the holder must now wait
     * to be back within its rate and burst (0 when it is within).
     */
    synchronized long count(long amount, long nowNanos) {
        if (!counted || dueNanos - nowNanos < 0) {
            dueNanos = nowNanos;
            counted = true;
        }
        dueNanos += Math.min(amount, MAX_AMOUNT) * 1_000_000_000L / perSecond;
        long ahead = dueNanos - nowNanos - BURST;
        return Math.max(0, ahead);
    }
}
