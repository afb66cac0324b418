package org.kafscale.proxy.core.topology;

/**
 * Whether the proxy may route now. A source whose data can go stale (etcd past its TTL) closes
 * the gate; the listener then answers everything but ApiVersions with a not-ready response and
 * closes the connection, rather than route on stale data.
 */
@FunctionalInterface
public interface RoutingGate {
    /** True when requests may be routed. May do one quick re-check of the source. */
    boolean routable();

    /**
     * Asked when {@link #routable()} said no: may try the source once more (asynchronously, never
     * blocking the caller) and completes with the answer after that.
     */
    default java.util.concurrent.CompletionStage<Boolean> recheck() {
        return java.util.concurrent.CompletableFuture.completedFuture(routable());
    }

    /** A gate that is open whenever the topology lists at least one broker. */
    static RoutingGate whenBrokersKnown(Topology topology) {
        return () -> topology.snapshot().hasBrokers();
    }
}
