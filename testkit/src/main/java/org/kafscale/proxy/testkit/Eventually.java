package org.kafscale.proxy.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a deadline instead of sleeping a fixed time.
 *
 * <p>Polls quickly at first (most conditions hold within milliseconds) and backs off to a short
 * maximum interval, so a slow machine costs waiting time, not flaky failures.
 */
public final class Eventually {

    private static final long FIRST_PAUSE_MILLIS = 5;
    private static final long MAX_PAUSE_MILLIS = 100;

    /** A check that passes by returning and fails by throwing (for example a JUnit assertion). */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    private Eventually() {
    }

    /**
     * Polls {@code condition} until it returns true.
     *
     * @throws AssertionError naming {@code what} if the deadline passes first; an exception thrown
     *     by the last poll is attached as the cause
     */
    public static void await(Duration deadline, String what, BooleanSupplier condition) {
        await(deadline, what, () -> {
            if (!condition.getAsBoolean()) {
                throw new AssertionError(what + ": condition still false");
            }
        });
    }

    /**
     * Runs {@code condition} until it completes without throwing.
     *
     * @throws AssertionError naming {@code what} and carrying the last failure if the deadline
     *     passes first
     */
    public static void await(Duration deadline, String what, ThrowingRunnable condition) {
        long end = System.nanoTime() + deadline.toNanos();
        long pause = FIRST_PAUSE_MILLIS;
        Throwable last;
        while (true) {
            try {
                condition.run();
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            } catch (Exception | AssertionError e) {
                last = e;
            }
            if (System.nanoTime() - end >= 0) {
                throw new AssertionError("timed out after " + deadline + " waiting for " + what
                        + (last.getMessage() == null ? "" : " (last failure: " + last.getMessage() + ")"), last);
            }
            pauseFor(pause);
            pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
        }
    }

    private static void pauseFor(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while polling", e);
        }
    }
}
