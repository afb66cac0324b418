package org.kafscale.proxy.core.quota;

/**
 * Byte rates one holder of a quota (a virtual cluster, or one principal in it) may use, each in
 * bytes per second; 0 for no limit. Produce counts the bytes of the client's Produce requests,
 * Fetch those of the Fetch answers it gets, as a Kafka broker counts them.
 */
public record QuotaLimits(long produceBytesPerSecond, long fetchBytesPerSecond) {
    public static final QuotaLimits NONE = new QuotaLimits(0, 0);

    public QuotaLimits {
        if (produceBytesPerSecond < 0 || fetchBytesPerSecond < 0) {
            throw new IllegalArgumentException("a byte rate cannot be negative");
        }
    }

    /** The limit in bytes per second for {@code direction}; 0 for none. */
    public long of(QuotaDirection direction) {
        return direction == QuotaDirection.PRODUCE ? produceBytesPerSecond : fetchBytesPerSecond;
    }

    public boolean isEmpty() {
        return produceBytesPerSecond == 0 && fetchBytesPerSecond == 0;
    }
}
