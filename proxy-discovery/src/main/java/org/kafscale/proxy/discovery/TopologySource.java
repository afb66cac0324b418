package org.kafscale.proxy.discovery;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/** A topology that reads a source (etcd, a Kafka cluster) and keeps following it. */
public interface TopologySource extends Topology, AutoCloseable {

    /** Starts following the source; completes with the first read (or its failure). */
    CompletableFuture<TopologySnapshot> start();

    /** Whether the proxy may route on what this source knows now. */
    RoutingGate gate();

    /** Milliseconds since the last good read of the source (for the snapshot-age metric), or -1 before one. */
    long millisSinceGoodRead();

    /**
     * While the proxy still routes on this source's last good read but reading it again fails
     * (etcd unreachable, within its TTL): what fails and since when. Empty while reads succeed,
     * and for sources whose data does not go stale.
     */
    default Optional<FailingReads> failingReads() {
        return Optional.empty();
    }

    /**
     * @param detail what failed, for an operator
     * @param since the first failed read after the last good one
     */
    record FailingReads(String detail, Instant since) {
    }

    @Override
    void close();
}
