package org.kafscale.proxy.app.health;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.Topology;

/**
 * Whether the proxy should receive new clients, and why: it must be able to route (etcd read
 * within the TTL, brokers known), its last read-path probe must have passed recently, and it must
 * not be draining. Cheap: answers from state kept by others, never waits.
 */
public final class Readiness {
    private final RoutingGate gate;
    private final Topology topology;
    private final ReadPathProbe probe;
    private final AtomicBoolean draining = new AtomicBoolean();

    public Readiness(RoutingGate gate, Topology topology, ReadPathProbe probe) {
        this.gate = gate;
        this.topology = topology;
        this.probe = probe;
    }

    /** From now on the proxy reports not ready, so load balancers stop sending clients. */
    public void startDraining() {
        draining.set(true);
    }

    /** Whether {@link #startDraining} was called. */
    public boolean draining() {
        return draining.get();
    }

    public Status status() {
        if (draining.get()) {
            return Status.notReady("draining", "draining: the proxy is shutting down");
        }
        if (!gate.routable()) {
            return Status.notReady("not_routing", "not routing: the topology source has not been read within its TTL");
        }
        if (!topology.snapshot().hasBrokers()) {
            return Status.notReady("no_backends", "no backends available");
        }
        Optional<ProbeResult> result = probe.latest();
        if (result.isEmpty()) {
            return Status.notReady("read_path_not_probed", "the read path has not been probed yet");
        }
        Duration age = Duration.ofNanos(System.nanoTime() - result.get().finishedAtNanos());
        if (age.compareTo(probe.staleAfter()) > 0) {
            return Status.notReady("read_path_probe_stale", "the last read-path probe finished " + age.toSeconds() + " s ago");
        }
        return switch (result.get().verdict()) {
            case PROVEN -> Status.ready("read path proven: " + result.get().detail());
            case UNPROVEN -> Status.ready("read path unproven: " + result.get().detail());
            case FAILED -> Status.notReady("read_path_failed", "read path failed: " + result.get().detail());
        };
    }

    /**
     * The answer for {@code /readyz}.
     *
     * @param ready 200 when true, 503 otherwise
     * @param code why, as a stable code ({@code ready}, or e.g. {@code no_backends}) for {@code /health}
     * @param reason one line saying why
     */
    public record Status(boolean ready, String code, String reason) {
        public Status(boolean ready, String reason) {
            this(ready, ready ? "ready" : "not_ready", reason);
        }

        static Status ready(String reason) {
            return new Status(true, "ready", reason);
        }

        static Status notReady(String code, String reason) {
            return new Status(false, code, reason);
        }

        /** The response body: {@code ready} or {@code not ready}, then the reason. */
        public String body() {
            return (ready ? "ready" : "not ready") + "\n" + reason + "\n";
        }
    }
}
