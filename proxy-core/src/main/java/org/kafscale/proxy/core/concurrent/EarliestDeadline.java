package org.kafscale.proxy.core.concurrent;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One scheduled check for many deadlines on one event loop: the owner tells it each new deadline,
 * and it keeps a single task at the earliest one. When the task runs, the owner looks at what it
 * holds, handles what is past due, and names the next deadline, if any.
 *
 * <p>This replaces a timer task per request, scheduled and then cancelled again with the answer:
 * a produce profile had the scheduler's queue upkeep ({@code DefaultPriorityQueue}, the cancelled
 * task's removal) among the event loop's top frames, and each task was an allocation per request.
 * Deadlines are read on the loop's own clock ({@link EventExecutor#ticker()}), so a test loop that
 * moves time by hand moves them too. Confined to the event loop.
 */
public final class EarliestDeadline {
    /** Caps a timeout so that a deadline cannot wrap around (about 73 years is "never" here). */
    private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;

    private final EventExecutor loop;
    private final Runnable check;
    private ScheduledFuture<?> scheduled;
    private long scheduledNanos;

    /**
     * @param loop  the event loop the owner runs on
     * @param check run at the earliest deadline given; it calls {@link #checkBy} for the next one
     */
    public EarliestDeadline(EventExecutor loop, Runnable check) {
        this.loop = loop;
        this.check = check;
    }

    /** The deadline {@code timeoutMillis} from now, on the loop's clock. */
    public long after(long timeoutMillis) {
        return now() + Math.min(TimeUnit.MILLISECONDS.toNanos(timeoutMillis), LONGEST_NANOS);
    }

    /** Now, on the loop's clock. */
    public long now() {
        return loop.ticker().nanoTime();
    }

    /** Whether {@code deadlineNanos} has come. */
    public static boolean isPast(long deadlineNanos, long nowNanos) {
        return deadlineNanos - nowNanos <= 0;
    }

    /** Makes sure the check runs no later than {@code deadlineNanos}. */
    public void checkBy(long deadlineNanos) {
        if (scheduled != null) {
            if (scheduledNanos - deadlineNanos <= 0) {
                return; // the usual case: an earlier deadline comes first
            }
            scheduled.cancel(false);
        }
        scheduledNanos = deadlineNanos;
        scheduled = loop.schedule(this::run, deadlineNanos - now(), TimeUnit.NANOSECONDS);
    }

    /** Nothing is waiting any more: the check is not needed. */
    public void cancel() {
        if (scheduled != null) {
            scheduled.cancel(false);
            scheduled = null;
        }
    }

    private void run() {
        scheduled = null;
        check.run();
    }
}
