package org.kafscale.proxy.discovery.etcd;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.BooleanSupplier;
import org.kafscale.proxy.discovery.TopologySource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend cache TTL (KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC): routing on etcd's data is allowed
 * while brokers are known and the last good read is younger than the TTL. A good read is one that
 * parsed and listed at least one broker; static backends exempt the proxy from the TTL.
 *
 * <p>Whether it is open is computed when asked ({@link #open()}, cheap, per request). Operators
 * also need to see the change, so {@link #report()} (called after each read and on each refusal)
 * logs it once: WARN when routing stops, saying why and since when, INFO when it resumes. The
 * first opening at start is not news and is not logged.
 */
final class TtlGate {
    private static final Logger LOGGER = LoggerFactory.getLogger(TtlGate.class);

    private static final Duration RECHECK_QUIET = Duration.ofSeconds(1);

    private enum Reported { STARTING, OPEN, CLOSED }

    private final Duration ttl;
    private final boolean exempt;
    private final BooleanSupplier brokersKnown;
    private volatile long lastHealthyNanos;
    private volatile boolean everHealthy;
    private volatile long lastFailedNanos;
    private volatile String lastFailure;
    /** The first failed read since the last good one (wall clock, for health), or null. */
    private volatile Instant failingSince;
    private Reported reported = Reported.STARTING;
    private long closedAtNanos;

    /**
     * @param ttl how long a good read keeps the gate open
     * @param exempt true with static backends: only {@code brokersKnown} counts
     * @param brokersKnown whether the current snapshot lists a broker
     */
    TtlGate(Duration ttl, boolean exempt, BooleanSupplier brokersKnown) {
        this.ttl = ttl;
        this.exempt = exempt;
        this.brokersKnown = brokersKnown;
    }

    /** A read parsed and listed at least one broker. */
    void healthyRead() {
        lastHealthyNanos = System.nanoTime();
        everHealthy = true;
        lastFailure = null;
        failingSince = null;
    }

    /** A read failed; {@code why} is said if the gate closes before a good read. */
    void failedRead(String why) {
        lastFailedNanos = System.nanoTime();
        if (failingSince == null) {
            failingSince = Instant.now();
        }
        lastFailure = why;
    }

    /**
     * While the gate is still open but reads fail: the last error and since when; empty otherwise
     * (reads succeed, or the gate is closed, which readiness reports on its own).
     */
    Optional<TopologySource.FailingReads> failingWhileOpen() {
        String failure = lastFailure;
        Instant since = failingSince;
        if (failure == null || since == null || !open()) {
            return Optional.empty();
        }
        if (exempt) {
            return Optional.of(new TopologySource.FailingReads("etcd reads fail (last error: " + failure
                    + "); routing on the static backends and the last good read", since));
        }
        long left = ttl.toSeconds() - Duration.ofNanos(System.nanoTime() - lastHealthyNanos).toSeconds();
        return Optional.of(new TopologySource.FailingReads("etcd reads fail (last error: " + failure
                + "); routing on the last good read, for at most " + Math.max(0, left) + " s more (TTL "
                + ttl.toSeconds() + " s)", since));
    }

    boolean open() {
        return open(System.nanoTime());
    }

    /**
     * Whether to route, when a request found the gate closed: past the TTL, one fresh {@code read}
     * decides; recovery needs no restart. A read that failed within the last {@link #RECHECK_QUIET}
     * answers for it, so a burst of refused requests during an outage does not each wait out a
     * doomed read.
     */
    CompletionStage<Boolean> recheck(Supplier<? extends CompletionStage<?>> read) {
        if (open()) {
            return CompletableFuture.completedFuture(true);
        }
        // The first refusal may come before any read has seen the TTL pass.
        report();
        if (lastFailure != null && System.nanoTime() - lastFailedNanos < RECHECK_QUIET.toNanos()) {
            return CompletableFuture.completedFuture(false);
        }
        return read.get().handle((snapshot, error) -> open());
    }

    /** Whether a read has failed since the last good one (or, before any, at all). */
    boolean failingSinceHealthy() {
        return lastFailure != null;
    }

    /** Milliseconds since the last good read, or -1 before one. */
    long millisSinceHealthy() {
        return everHealthy ? (System.nanoTime() - lastHealthyNanos) / 1_000_000 : -1;
    }

    /**
     * Logs the gate's change since the last report, if it changed. Under a lock as a whole: a read
     * that lands while another thread is reporting the gate closed must see that report's state,
     * or it would take the gate for still open, and the reopening would never be said (seen under
     * load: two "routing stops" lines in a row). Callers are reads and refusals, not the routing
     * path, so the lock costs nothing that matters.
     */
    synchronized void report() {
        long now = System.nanoTime();
        Reported state = open(now) ? Reported.OPEN : Reported.CLOSED;
        Reported before = reported;
        if (state == before) {
            return;
        }
        reported = state;
        if (state == Reported.CLOSED) {
            closedAtNanos = now;
            LOGGER.warn("TTL gate closed, routing stops: {}; every request but ApiVersions is refused until etcd is read",
                    closedBecause(now));
        } else if (before == Reported.CLOSED) {
            LOGGER.info("TTL gate open, routing resumes: etcd was read after {} s closed",
                    Duration.ofNanos(now - closedAtNanos).toSeconds());
        }
    }

    private boolean open(long now) {
        if (!brokersKnown.getAsBoolean()) {
            return false;
        }
        return exempt || everHealthy && now - lastHealthyNanos <= ttl.toNanos();
    }

    private String closedBecause(long now) {
        String failure = lastFailure == null ? "" : " (last error: " + lastFailure + ")";
        if (!everHealthy) {
            return "no good etcd read yet" + failure;
        }
        if (!brokersKnown.getAsBoolean()) {
            return "etcd lists no broker";
        }
        Duration since = Duration.ofNanos(now - lastHealthyNanos);
        Instant at = Instant.now().minus(since).truncatedTo(ChronoUnit.SECONDS);
        return "no good etcd read since " + at + " (" + since.toSeconds() + " s ago, TTL " + ttl.toSeconds() + " s)"
                + failure;
    }
}
