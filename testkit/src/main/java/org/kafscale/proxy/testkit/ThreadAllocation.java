package org.kafscale.proxy.testkit;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes the calling thread allocates while a piece of code runs (HotSpot's per-thread
 * allocation counter), for fuzz targets that assert a decoder's allocation is bounded by its
 * input rather than by a length field the input claims.
 */
public final class ThreadAllocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * While fuzzing ({@code JAZZER_FUZZ} set), Jazzer's coverage and comparison hooks allocate on
     * the fuzzed thread too (13 MB for one 96-byte JSON document, none of it the parser's): the
     * cap is widened by this factor then. A length field trusted before the bytes are checked
     * claims up to 2 GiB, which either cap catches.
     */
    private static final int FUZZING_FACTOR = 32;
    private static final boolean FUZZING = System.getenv("JAZZER_FUZZ") != null
            && !System.getenv("JAZZER_FUZZ").isEmpty();

    private ThreadAllocation() {
    }

    /** Runs {@code step} and returns how many heap bytes this thread allocated meanwhile. */
    public static long measure(Runnable step) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        step.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    /**
     * Runs {@code step} and fails if it allocated more than {@code capBytes}: a decoder that sizes
     * an allocation from a length field before checking the bytes are there shows up here.
     *
     * <p>A step over the cap runs once more and only the second figure counts: the first time a
     * path runs, loading (and, while fuzzing, instrumenting) its classes allocates megabytes that
     * are not the step's own. {@code step} must therefore be repeatable.
     */
    public static void assertAtMost(long capBytes, String what, Runnable step) {
        long cap = FUZZING ? capBytes * FUZZING_FACTOR : capBytes;
        long allocated = measure(step);
        if (allocated > cap) {
            allocated = measure(step);
        }
        if (allocated > cap) {
            throw new AssertionError(what + " allocated " + allocated + " bytes, over the cap of " + cap);
        }
    }
}
