package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.EventExecutor;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes that client connections make the proxy hold (half-read requests, answers not yet read),
 * summed over every connection of a listener and capped.
 *
 * <p>Over the cap, a connection that holds at least an even share ({@code cap / holders}) is told
 * to stop reading; the ones that hold less go on, so a few connections that hoard memory are
 * paused and nobody is failed. (When the sum is over the cap, the largest holder is always over
 * its share.) Once the sum is back under the cap, every paused connection is woken on its own
 * event loop to look again. Each connection reports what it holds at the points where that
 * changes; the sum is exact at those points.
 */
final class HeldBytes {
    private final long capBytes;
    private final AtomicLong total = new AtomicLong();
    private final AtomicInteger holders = new AtomicInteger();
    private final Set<Holder> paused = ConcurrentHashMap.newKeySet();

    HeldBytes(long capBytes) {
        this.capBytes = capBytes;
    }

    long total() {
        return total.get();
    }

    /**
     * One connection's account.
     *
     * @param loop the connection's event loop, where {@code wake} runs
     * @param wake called once the sum is back under the cap while this holder was told to pause
     */
    Holder holder(EventExecutor loop, Runnable wake) {
        return new Holder(loop, wake);
    }

    private void wakePaused() {
        for (Holder holder : paused) {
            if (paused.remove(holder)) {
                holder.wake();
            }
        }
    }

    /** Confined to its connection's event loop; only the sums are shared. */
    final class Holder {
        private final EventExecutor loop;
        private final Runnable wake;
        private long held;
        private boolean over;

        private Holder(EventExecutor loop, Runnable wake) {
            this.loop = loop;
            this.wake = wake;
        }

        /**
         * The connection now holds {@code bytes}.
         *
         * @return whether it should stop reading (the sum is over the cap and it holds its share or more)
         */
        boolean hold(long bytes) {
            if (bytes != held) {
                if (held == 0) {
                    holders.incrementAndGet();
                } else if (bytes == 0) {
                    holders.decrementAndGet();
                }
                long sum = total.addAndGet(bytes - held);
                held = bytes;
                if (sum <= capBytes && !paused.isEmpty()) {
                    wakePaused();
                }
            }
            long sum = total.get();
            over = bytes > 0 && sum > capBytes && bytes >= capBytes / Math.max(1, holders.get());
            if (over) {
                paused.add(this);
            } else {
                paused.remove(this);
            }
            return over;
        }

        /** Whether the last {@link #hold} told the connection to stop reading. */
        boolean over() {
            return over;
        }

        /** The connection closed: what it held is freed. */
        void release() {
            paused.remove(this);
            hold(0);
        }

        private void wake() {
            try {
                loop.execute(wake);
            } catch (RejectedExecutionException e) {
                // The loop has stopped, and its connections with it: nothing is left to resume.
            }
        }
    }
}
