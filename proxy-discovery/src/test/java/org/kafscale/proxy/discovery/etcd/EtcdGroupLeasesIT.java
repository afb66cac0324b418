package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.testkit.Eventually;

/**
 * Group leases as {@link EtcdTopology} uses them against a real etcd: a lease wins; a lease whose
 * broker refused the role stays set aside across reads while etcd still names that broker, and a
 * moved lease wins again. (No Kafka client here: an id without a usable lease names no coordinator.)
 */
class EtcdGroupLeasesIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    static final OrdersInEtcd ETCD = new OrdersInEtcd();

    @Test
    void aRefusedLeaseStaysAsideWhileEtcdNamesTheSameBrokerAndAMovedLeaseWins() {
        // Given: group "billing" leased to broker 1
        ETCD.kafscale().putGroupLease("billing", 1);
        try (EtcdTopology topology = EtcdFixtures.topology(EtcdFixtures.client(ETCD.etcd().endpoint()), TTL,
                EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT)) {
            topology.start().join();
            assertEquals(1, coordinator(topology, "billing"), "the lease wins");

            // When: broker 1 refuses the role, and etcd is read again with the lease unchanged
            topology.invalidateCoordinator(CoordinatorKind.GROUP, "billing");
            topology.read().join();

            // Then: the stale lease is not used again
            assertEquals(-1, coordinator(topology, "billing"), "a lease whose broker refused, still in etcd");

            // When: KafScale moves the lease to broker 0
            ETCD.kafscale().putGroupLease("billing", 0);

            // Then: the new lease wins
            Eventually.await(DEADLINE, "the moved lease to win", () -> coordinator(topology, "billing") == 0);
        }
    }

    @Test
    void aTransactionalIdIsNeverPlacedByAGroupLease() {
        // Given: a group lease whose name is also a transactional id
        ETCD.kafscale().putGroupLease("shared-name", 1);
        try (EtcdTopology topology = EtcdFixtures.topology(EtcdFixtures.client(ETCD.etcd().endpoint()), TTL,
                EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT)) {
            topology.start().join();
            // Then: the group has its lease, the transactional id none (it is looked up, here by no client)
            assertEquals(1, coordinator(topology, "shared-name"));
            assertEquals(-1, topology.coordinator(CoordinatorKind.TRANSACTION, "shared-name").toCompletableFuture().join());
        }
    }

    private static int coordinator(EtcdTopology topology, String group) {
        return topology.coordinator(CoordinatorKind.GROUP, group).toCompletableFuture().join();
    }
}
