package org.kafscale.proxy.lfs.resolve;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/**
 * The payload bytes every resolving Fetch of the process may hold at once. A Fetch reserves what
 * it will hold before its first S3 call and gives it back once its answer is rebuilt; past the
 * budget it waits (its future completes later), first come first served, so a large Fetch is not
 * passed over forever by small ones. A reservation larger than the whole budget waits until
 * nothing else is held and then goes alone: a payload larger than the budget still gets through,
 * one at a time. Thread-safe; futures complete on the thread that releases (or reserves).
 */
public final class ResolutionBudget {
    private final long capacity;
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    private long held;

    private record Waiting(long bytes, CompletableFuture<Reservation> granted) {
    }

    public ResolutionBudget(long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a budget needs at least one byte");
        }
        this.capacity = capacity;
    }

    /** Bytes held given back exactly once by {@link #close}. */
    public final class Reservation implements AutoCloseable {
        private final long bytes;
        private boolean released;

        private Reservation(long bytes) {
            this.bytes = bytes;
        }

        public long bytes() {
            return bytes;
        }

        @Override
        public void close() {
            synchronized (ResolutionBudget.this) {
                if (released) {
                    return;
                }
                released = true;
            }
            release(bytes);
        }
    }

    /** {@code bytes} reserved: now when they fit (and nobody waits before), else once they do. */
    public CompletableFuture<Reservation> reserve(long bytes) {
        long wanted = Math.max(0, bytes);
        synchronized (this) {
            if (waiting.isEmpty() && fits(wanted)) {
                held += wanted;
                return CompletableFuture.completedFuture(new Reservation(wanted));
            }
            CompletableFuture<Reservation> granted = new CompletableFuture<>();
            waiting.add(new Waiting(wanted, granted));
            return granted;
        }
    }

    /** Bytes reserved now. */
    public synchronized long held() {
        return held;
    }

    /** Reservations waiting for room. */
    public synchronized int waiting() {
        return waiting.size();
    }

    public long capacity() {
        return capacity;
    }

    private boolean fits(long bytes) {
        return held + bytes <= capacity || held == 0;
    }

    private void release(long bytes) {
        Deque<Waiting> granted = new ArrayDeque<>();
        synchronized (this) {
            held -= bytes;
            while (!waiting.isEmpty() && fits(waiting.peek().bytes())) {
                Waiting next = waiting.poll();
                held += next.bytes();
                granted.add(next);
            }
        }
        // Completed outside the lock: what runs next may reserve or release again.
        granted.forEach(w -> w.granted().complete(new Reservation(w.bytes())));
    }
}
