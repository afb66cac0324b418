package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.testkit.Eventually;

/** A broker refusing a route, as {@link EtcdTopology} handles it against a real etcd. */
class EtcdInvalidationIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    static final OrdersInEtcd ETCD = new OrdersInEtcd();

    @Test
    void refusedRouteIsGoneAtOnceAndEtcdsNextWordRestoresIt() {
        // Given
        HeldAnswersClient client = new HeldAnswersClient(EtcdFixtures.client(ETCD.etcd().endpoint()));
        try (EtcdTopology topology = EtcdFixtures.topology(client, TTL, EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT)) {
            topology.start().join();
            assertEquals(OptionalInt.of(0), topology.snapshot().owner("orders", 0));
            // When: broker 0 says it does not lead orders-0, while etcd's answers are held back
            client.hold();
            topology.invalidatePartition("orders", 0);
            // Then: the route is gone before etcd has answered, the other partition keeps its route
            TopologySnapshot meanwhile = topology.snapshot();
            assertEquals(OptionalInt.empty(), meanwhile.owner("orders", 0));
            assertEquals(OptionalInt.of(1), meanwhile.owner("orders", 1));
            // When: etcd's answer arrives (its lease still names broker 0)
            client.release();
            // Then: the source's word wins again
            Eventually.await(DEADLINE, "the read the refusal triggered to restore orders-0",
                    () -> topology.snapshot().owner("orders", 0).equals(OptionalInt.of(0)));
        }
    }

    /**
     * The read a refusal triggers must start after the refusal: one already running may have read
     * the lease before it moved, and would put the refused owner back (review §3.16).
     */
    @Test
    void refusalWhileAReadRunsReadsEtcdAgainAfterThatRead() {
        // Given: a read that etcd has answered but whose answer has not arrived yet
        HeldAnswersClient client = new HeldAnswersClient(EtcdFixtures.client(ETCD.etcd().endpoint()));
        try (EtcdTopology topology = EtcdFixtures.topology(client, TTL, EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT)) {
            topology.start().join();
            client.hold();
            CompletableFuture<TopologySnapshot> running = topology.read();
            Eventually.await(DEADLINE, "etcd to answer the running read", () -> client.answered() == client.reads());
            int readsBefore = client.reads();
            // When: a broker refuses a route
            topology.invalidatePartition("orders", 0);
            // Then: no second read runs beside the first
            assertEquals(readsBefore, client.reads());
            // When: the running read ends
            client.release();
            running.join();
            // Then: etcd is read once more, from the start
            Eventually.await(DEADLINE, "a full read of etcd after the running one",
                    () -> client.reads() > readsBefore);
        }
    }
}
