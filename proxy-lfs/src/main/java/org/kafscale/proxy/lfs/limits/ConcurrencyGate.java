package org.kafscale.proxy.lfs.limits;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.kafscale.proxy.lfs.http.LfsException;

/**
 * Admits at most {@code total} requests of one kind at once, and at most {@code perClient} of them
 * for one client address. A request over either bound is refused at once with 503 {@code busy}
 * rather than queued: a queued upload would hold its connection and body anyway.
 *
 * <p>The last {@code reserved} free permits go only to an address that holds none: without them,
 * addresses that already hold permits (one, when {@code perClient} is the total) could take every
 * permit with slow bodies and refuse every other address until the minimum-rate rule cuts them.
 * With them, {@code reserved} more addresses are admitted however busy the others keep the gate.
 *
 * <p>Series: {@code kafscale_lfs_proxy_<kind>_in_flight} (gauge) and
 * {@code kafscale_lfs_proxy_<kind>_refused{limit="total"|"per_client"|"reserved"}}.
 */
public final class ConcurrencyGate {
    private final String kind;
    private final int total;
    private final int perClient;
    private final int reserved;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Entries leave at zero, so the map holds at most {@code total} addresses. */
    private final ConcurrentHashMap<String, Integer> byClient = new ConcurrentHashMap<>();
    private final Counter refusedTotal;
    private final Counter refusedPerClient;
    private final Counter refusedReserved;

    /**
     * @param kind the series' name part and the error message's noun, e.g. {@code uploads}
     * @param reserved permits of the total only an address holding none may take (0: none; below the total)
     */
    public ConcurrencyGate(String kind, int total, int perClient, int reserved, MeterRegistry registry) {
        if (reserved < 0 || reserved >= total) {
            throw new IllegalArgumentException("reserved permits must be at least 0 and below the total " + total);
        }
        this.kind = kind;
        this.total = total;
        this.perClient = perClient;
        this.reserved = reserved;
        Gauge.builder("kafscale_lfs_proxy_" + kind + "_in_flight", inFlight, AtomicInteger::get)
                .description("LFS " + kind + " admitted and not finished").register(registry);
        this.refusedTotal = refused(registry, "total");
        this.refusedPerClient = refused(registry, "per_client");
        this.refusedReserved = refused(registry, "reserved");
    }

    private Counter refused(MeterRegistry registry, String limit) {
        return Counter.builder("kafscale_lfs_proxy_" + kind + "_refused").tag("limit", limit)
                .description("LFS " + kind + " refused with 503 busy").register(registry);
    }

    /** A permit, or empty when a bound is reached (counted). */
    public Optional<Permit> tryAcquire(String client) {
        Counter[] refusedBy = new Counter[1];
        // The client's entry is locked while the total is taken, so what it holds cannot change meanwhile.
        byClient.compute(client, (k, held) -> {
            int count = held == null ? 0 : held;
            if (count >= perClient) {
                refusedBy[0] = refusedPerClient;
                return held;
            }
            refusedBy[0] = takeOne(count == 0 ? total : total - reserved);
            // Not a conditional expression: it would unbox an absent entry's null.
            if (refusedBy[0] != null) {
                return held;
            }
            return count + 1;
        });
        if (refusedBy[0] != null) {
            refusedBy[0].increment();
            return Optional.empty();
        }
        return Optional.of(new Permit(client));
    }

    /** Takes a permit if fewer than {@code limit} are out; else the counter of the bound that refused it. */
    private Counter takeOne(int limit) {
        int now;
        do {
            now = inFlight.get();
            if (now >= limit) {
                return now >= total ? refusedTotal : refusedReserved;
            }
        } while (!inFlight.compareAndSet(now, now + 1));
        return null;
    }

    /** Like {@link #tryAcquire}, but throws the 503 {@code busy} answer when a bound is reached. */
    public Permit acquire(String client) {
        return tryAcquire(client).orElseThrow(this::busy);
    }

    /** Requests admitted and not finished. */
    public int inFlight() {
        return inFlight.get();
    }

    private LfsException busy() {
        return new LfsException(503, "busy", "too many concurrent " + kind + "; retry later");
    }

    /** One admitted request; {@link #close} (once, from any thread) lets the next one in. */
    public final class Permit implements AutoCloseable {
        private final String client;
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit(String client) {
            this.client = client;
        }

        @Override
        public void close() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            byClient.computeIfPresent(client, (k, held) -> held <= 1 ? null : held - 1);
            inFlight.decrementAndGet();
        }
    }
}
