package org.kafscale.proxy.core.quota;

/**
 * The rates one holder of a quota (a virtual cluster, or one principal in it) may use; 0 for no
 * limit. Produce counts the bytes of the client's Produce requests, fetch those of the Fetch
 * answers it gets, as a Kafka broker counts them; the request percentage is the share of one
 * event-loop thread's time its requests may take (100 is a whole thread), as Kafka's
 * {@code request_percentage} is of one request-handler thread.
 */
public record QuotaLimits(long produceBytesPerSecond, long fetchBytesPerSecond, double requestPercentage) {
    public static final QuotaLimits NONE = new QuotaLimits(0, 0, 0);

    public QuotaLimits {
        if (produceBytesPerSecond < 0 || fetchBytesPerSecond < 0 || requestPercentage < 0
                || Double.isNaN(requestPercentage)) {
            throw new IllegalArgumentException("a rate cannot be negative");
        }
    }

    /** Byte rates only. */
    public QuotaLimits(long produceBytesPerSecond, long fetchBytesPerSecond) {
        this(produceBytesPerSecond, fetchBytesPerSecond, 0);
    }

    /** The limit for {@code kind} per second (bytes, or nanoseconds of loop time); 0 for none. */
    public long of(QuotaKind kind) {
        return switch (kind) {
            case PRODUCE -> produceBytesPerSecond;
            case FETCH -> fetchBytesPerSecond;
            // 100 % of a thread is 1e9 ns of loop time per second
            case REQUEST_TIME -> Math.round(requestPercentage * 10_000_000);
        };
    }

    public boolean isEmpty() {
        for (QuotaKind kind : QuotaKind.values()) {
            if (of(kind) > 0) {
                return false;
            }
        }
        return true;
    }
}
