package org.kafscale.proxy.core.logging;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * One kind of log line that may repeat once per request (a broker failing every request, a
 * client resetting): the first goes out at once, later ones at most once per interval, each
 * saying how many were held back since the last. Operators read logs during exactly the incidents
 * that make such lines repeat, so their volume must not scale with the request rate.
 *
 * <p>A line may carry key-values ({@link LogFields}); a held-back line's are dropped with it, and
 * the next line that goes out carries its own.
 *
 * <p>Thread-safe and lock-free: any event loop may call it.
 */
public final class RateLimitedLog {
    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextAllowedNanos;
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger logger, long interval, TimeUnit unit) {
        this.logger = logger;
        this.intervalNanos = unit.toNanos(interval);
        this.nextAllowedNanos = new AtomicLong(System.nanoTime());
    }

    /** Ten seconds between lines: often enough to follow an incident, rare enough to read. */
    public static RateLimitedLog every10Seconds(Logger logger) {
        return new RateLimitedLog(logger, 10, TimeUnit.SECONDS);
    }

    public void warn(String format, Object... args) {
        warn(LogFields.NONE, format, args);
    }

    public void info(String format, Object... args) {
        info(LogFields.NONE, format, args);
    }

    /** A WARN line carrying {@code fields} (the connection it is about) as key-values. */
    public void warn(LogFields fields, String format, Object... args) {
        if (!logger.isWarnEnabled()) {
            return;
        }
        long held = takeTurn();
        if (held >= 0) {
            fields.addTo(logger.atWarn()).log(withHeldBack(format, held), withCount(args, held));
        }
    }

    /** An INFO line carrying {@code fields} (the connection it is about) as key-values. */
    public void info(LogFields fields, String format, Object... args) {
        if (!logger.isInfoEnabled()) {
            return;
        }
        long held = takeTurn();
        if (held >= 0) {
            fields.addTo(logger.atInfo()).log(withHeldBack(format, held), withCount(args, held));
        }
    }

    /** How many lines were held back before this one, or -1 when this one is held back too. */
    private long takeTurn() {
        long now = System.nanoTime();
        long next = nextAllowedNanos.get();
        if (now - next < 0 || !nextAllowedNanos.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return -1;
        }
        return suppressed.getAndSet(0);
    }

    private static String withHeldBack(String format, long held) {
        return held == 0 ? format : format + " ({} similar lines held back)";
    }

    private static Object[] withCount(Object[] args, long held) {
        if (held == 0) {
            return args;
        }
        Object[] out = java.util.Arrays.copyOf(args, args.length + 1);
        out[args.length] = held;
        return out;
    }
}
