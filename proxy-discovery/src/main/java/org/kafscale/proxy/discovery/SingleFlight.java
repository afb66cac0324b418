package org.kafscale.proxy.discovery;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs one read of a source at a time, so a burst of callers costs the source one read.
 *
 * <p>Two ways to ask, because a running read may have started before the caller learned
 * something. {@link #current()} shares the running read: right for "what does the source say",
 * where a read a few milliseconds old is as good as a new one. {@link #fresh()} promises a read
 * that starts after the call: right after news that the source has changed (a broker refused a
 * route, a watch fired), where the running read may be the one that returned the old answer.
 * Callers of {@code fresh()} while a read runs share one follow-up read, started when the
 * running one ends, so the source still sees at most one read at a time and one queued.
 *
 * <p>Lock-free: event loops may call it.
 */
public final class SingleFlight<T> {
    private final Supplier<CompletableFuture<T>> read;
    private final AtomicReference<Flights<T>> flights = new AtomicReference<>(Flights.idle());

    /** The read now running (null when none) and the follow-up promised to {@link #fresh()} callers. */
    private record Flights<T>(CompletableFuture<T> running, CompletableFuture<T> queued) {
        static <T> Flights<T> idle() {
            return new Flights<>(null, null);
        }
    }

    /** @param read starts one read of the source */
    public SingleFlight(Supplier<CompletableFuture<T>> read) {
        this.read = read;
    }

    /** The running read's result, or a new read's when none runs. */
    public CompletableFuture<T> current() {
        while (true) {
            Flights<T> now = flights.get();
            if (now.running() != null) {
                return now.running();
            }
            CompletableFuture<T> mine = new CompletableFuture<>();
            if (flights.compareAndSet(now, new Flights<>(mine, null))) {
                launch(mine);
                return mine;
            }
        }
    }

    /**
     * The result of a read that starts after this call: a new read when none runs, otherwise the
     * follow-up that starts when the running one ends.
     */
    public CompletableFuture<T> fresh() {
        while (true) {
            Flights<T> now = flights.get();
            if (now.running() == null) {
                CompletableFuture<T> mine = new CompletableFuture<>();
                if (flights.compareAndSet(now, new Flights<>(mine, null))) {
                    launch(mine);
                    return mine;
                }
            } else if (now.queued() != null) {
                return now.queued();
            } else {
                CompletableFuture<T> next = new CompletableFuture<>();
                if (flights.compareAndSet(now, new Flights<>(now.running(), next))) {
                    return next;
                }
            }
        }
    }

    private void launch(CompletableFuture<T> result) {
        CompletableFuture<T> started;
        try {
            started = read.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.whenComplete((value, error) -> {
            // Hand over before completing, so a caller woken by this result that asks again gets
            // the follow-up (or a new read), never this finished one.
            CompletableFuture<T> next = finish();
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(value);
            }
            if (next != null) {
                launch(next);
            }
        });
    }

    /** Ends the running read: the queued follow-up becomes the running one (returned), or none runs. */
    private CompletableFuture<T> finish() {
        while (true) {
            Flights<T> now = flights.get();
            Flights<T> after = now.queued() == null ? Flights.idle() : new Flights<>(now.queued(), null);
            if (flights.compareAndSet(now, after)) {
                return now.queued();
            }
        }
    }
}
