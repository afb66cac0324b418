package org.kafscale.proxy.discovery;

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

    @Override
    void close();
}
