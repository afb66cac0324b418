package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;

/** What the etcd tests of this package publish and how they build a topology on it. */
final class EtcdFixtures {
    /** Brokers 0 and 1 (never dialled: the topology only reads etcd) and topic "orders" with partitions 0 and 1. */
    static final String SNAPSHOT = "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"b0.test\",\"Port\":9092},"
            + "{\"NodeID\":1,\"Host\":\"b1.test\",\"Port\":9092}],\"ControllerID\":0,"
            + "\"Topics\":[{\"Topic\":\"orders\",\"Partitions\":[{\"Partition\":0},{\"Partition\":1}]}],"
            + "\"ClusterID\":\"test-cluster\"}";
    /** Long enough that no backstop read happens during a test: every read is one the test caused. */
    static final Duration NO_BACKSTOP = Duration.ofHours(1);

    private EtcdFixtures() {
    }

    /** Clears KafScale's keys and publishes {@link #SNAPSHOT} with orders-0 owned by 0 and orders-1 by 1. */
    static void publishOrders(KafscaleEtcdWriter kafscale) {
        kafscale.deleteAll();
        kafscale.publishSnapshotJson(SNAPSHOT);
        kafscale.putPartitionLease("orders", 0, 0);
        kafscale.putPartitionLease("orders", 1, 1);
    }

    /** A client configured as the proxy configures its own (connect and retry bounds included). */
    static Client client(String endpoint) {
        return new EtcdSettings(List.of(endpoint), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), TlsProvider.JDK).connect();
    }

    /**
     * A topology without a Kafka client (it never routes a coordinator here: a group without a
     * lease, and any transactional id, has none, -1).
     */
    static EtcdTopology topology(Client etcd, Duration ttl, Duration resync, Duration readTimeout) {
        return new EtcdTopology(etcd, null, List.of(), ttl, resync, readTimeout, new SimpleMeterRegistry());
    }

    /** As {@link #topology(Client, Duration, Duration, Duration)}, waiting {@code watchBackoff} after a broken watch. */
    static EtcdTopology topology(Client etcd, Duration ttl, Duration resync, Duration readTimeout,
                                 Duration watchBackoff) {
        return new EtcdTopology(etcd, null, List.of(), ttl, resync, readTimeout, new SimpleMeterRegistry(),
                new EtcdWatches.Backoff(watchBackoff, watchBackoff));
    }
}
