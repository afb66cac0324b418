package org.kafscale.proxy.discovery;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs one read of a source at a time: callers that arrive while a read runs share its result
 * instead of starting another.
 */
public final class SingleFlight<T> {
    private final AtomicReference<CompletableFuture<T>> running = new AtomicReference<>();

    /** Starts {@code read} unless one is running, and returns the running one's result. */
    public CompletableFuture<T> run(Supplier<CompletableFuture<T>> read) {
        CompletableFuture<T> mine = new CompletableFuture<>();
        CompletableFuture<T> current = running.compareAndExchange(null, mine);
        if (current != null) {
            return current;
        }
        CompletableFuture<T> started;
        try {
            started = read.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.whenComplete((value, error) -> {
            running.set(null);
            if (error != null) {
                mine.completeExceptionally(error);
            } else {
                mine.complete(value);
            }
        });
        return mine;
    }
}
