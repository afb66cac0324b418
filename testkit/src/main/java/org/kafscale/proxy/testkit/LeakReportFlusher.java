package org.kafscale.proxy.testkit;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * Brings out the leaks Netty has not reported yet.
 *
 * <p>A leak is only noticed after the garbage collector has cleared the leaked object, and only
 * reported when the next object of that kind is tracked (that is when the detector drains its
 * reference queue). So: collect garbage, wait until the collection has really been processed, then
 * allocate and release a few buffers. A few rounds catch objects that became unreachable only
 * after an earlier round.
 */
final class LeakReportFlusher {

    private static final int ROUNDS = 3;
    private static final long GC_WAIT_MILLIS = 2_000;

    private LeakReportFlusher() {
    }

    /** Flushes the ByteBuf detector by allocating from the pooled and unpooled allocators. */
    static void flushByteBufLeaks() {
        flush(LeakReportFlusher::allocateAndReleaseBuffers);
    }

    /** Runs {@code trackSomething} (which must make a detector track an object) after each collection. */
    static void flush(Runnable trackSomething) {
        for (int round = 0; round < ROUNDS; round++) {
            collectGarbage();
            trackSomething.run();
        }
    }

    /**
     * Runs the GC until a fresh weakly reachable sentinel has been enqueued: then the reference
     * handler has processed that collection, and the leak detectors' queues hold what it found.
     */
    static void collectGarbage() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        long deadline = System.currentTimeMillis() + GC_WAIT_MILLIS;
        try {
            while (System.currentTimeMillis() < deadline) {
                System.gc();
                if (queue.remove(50) != null) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // The WeakReference object itself must stay reachable, or it is never enqueued.
            Reference.reachabilityFence(sentinel);
        }
    }

    private static void allocateAndReleaseBuffers() {
        for (ByteBufAllocator allocator : new ByteBufAllocator[] {PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT}) {
            ByteBuf heap = allocator.heapBuffer(16);
            heap.release();
            ByteBuf direct = allocator.directBuffer(16);
            direct.release();
        }
    }
}
