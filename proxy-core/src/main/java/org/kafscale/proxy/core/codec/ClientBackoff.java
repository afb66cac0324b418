package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.utils.ExponentialBackoff;

/**
 * kafka-clients' exponential backoff with jitter, the pause Kafka's own clients take between
 * retries, for retries the proxy makes on a client's behalf.
 */
public final class ClientBackoff {
    private final ExponentialBackoff backoff;

    /**
     * @param initialMillis the first pause
     * @param multiplier how much each pause grows over the one before
     * @param maxMillis the longest pause
     * @param jitter the random share (0.2: up to 20 % either way) of each pause
     */
    public ClientBackoff(long initialMillis, int multiplier, long maxMillis, double jitter) {
        this.backoff = new ExponentialBackoff(initialMillis, multiplier, maxMillis, jitter);
    }

    /**
     * Pause number {@code n}, counted from 0: about {@code initialMillis * multiplier^n}, at most
     * {@code maxMillis}, with jitter.
     */
    public long millis(long n) {
        return backoff.backoff(n);
    }
}
