package org.kafscale.proxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Coordinators come from a real broker's FindCoordinator: the one Kafka chose, a broker that does
 * not answer gives way to the next, an answer is cached until a broker refuses the role, and the
 * broker that refused is asked last.
 */
class CoordinatorLookupIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    private static EventLoopGroup workers;
    private static KafkaRequestClient client;

    private final AtomicReference<TopologySnapshot> snapshot = new AtomicReference<>(TopologySnapshot.EMPTY);
    private HangUpBroker hangUp;
    private CoordinatorLookup lookup;

    @BeforeAll
    static void startClient() {
        workers = NettyTransport.newEventLoopGroup(1, "lookup-test");
        client = new KafkaRequestClient(workers, new BackendConnector(16 << 20, Duration.ofSeconds(5)), "lookup-test",
                Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopClient() throws Exception {
        client.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @BeforeEach
    void startLookup() {
        hangUp = HangUpBroker.start();
        lookup = new CoordinatorLookup(client, snapshot::get, List.of(), null);
    }

    @AfterEach
    void stopHangUp() throws Exception {
        hangUp.close();
    }

    @Test
    void aGroupGetsTheCoordinatorKafkaChose() {
        // Given the cluster's own brokers
        KafkaCluster cluster = KAFKA.cluster();
        showBrokers(Map.of());
        // When several groups are looked up
        for (int i = 0; i < 6; i++) {
            String group = "chosen-" + i;
            // Then each gets the broker Kafka made its coordinator
            assertEquals(cluster.groupCoordinator(group), coordinator(CoordinatorKind.GROUP, group), group);
        }
    }

    @Test
    void aTransactionalIdGetsTheCoordinatorKafkaChose() {
        // Given the cluster's own brokers
        KafkaCluster cluster = KAFKA.cluster();
        showBrokers(Map.of());
        String id = "txn-chosen";
        // When the id is looked up (the first answers are COORDINATOR_NOT_AVAILABLE while Kafka creates its topic)
        Eventually.await(Duration.ofSeconds(30), "a coordinator for " + id,
                () -> coordinator(CoordinatorKind.TRANSACTION, id) >= 0);
        // Then it is the leader of the id's partition of __transaction_state
        Map<Integer, Integer> leaders = cluster.leaders("__transaction_state");
        assertEquals(leaders.get(Math.abs(id.hashCode()) % leaders.size()), coordinator(CoordinatorKind.TRANSACTION, id));
    }

    @Test
    void aBrokerThatDoesNotAnswerGivesWayToTheNext() {
        // Given a snapshot whose first broker hangs up on every connection
        KafkaCluster cluster = KAFKA.cluster();
        int first = firstBrokerId();
        showBrokers(Map.of(first, hangUp.as(first)));
        String group = groupCoordinatedBy(id -> id != first);
        // When the group is looked up
        int found = coordinator(CoordinatorKind.GROUP, group);
        // Then the first broker was asked, and the next one answered
        assertEquals(1, hangUp.accepted());
        assertEquals(cluster.groupCoordinator(group), found);
    }

    @Test
    void aFoundCoordinatorIsCachedUntilABrokerRefusesIt() {
        // Given a group found once, through a first broker that hangs up
        int first = firstBrokerId();
        showBrokers(Map.of(first, hangUp.as(first)));
        String group = groupCoordinatedBy(id -> id != first);
        int found = coordinator(CoordinatorKind.GROUP, group);
        int asked = hangUp.accepted();
        // When it is looked up again
        assertEquals(found, coordinator(CoordinatorKind.GROUP, group));
        // Then no broker was asked
        assertEquals(asked, hangUp.accepted(), "a cached coordinator asks no broker");
        // When its coordinator refuses the role
        lookup.invalidate(CoordinatorKind.GROUP, group);
        // Then the next lookup asks again, from the first broker on
        assertEquals(found, coordinator(CoordinatorKind.GROUP, group));
        assertEquals(asked + 1, hangUp.accepted(), "after a refusal the group is looked up again");
    }

    @Test
    void theBrokerThatRefusedIsAskedLast() {
        // Given a group whose coordinator is the first broker, which hangs up on new connections
        KafkaCluster cluster = KAFKA.cluster();
        int first = firstBrokerId();
        String group = groupCoordinatedBy(id -> id == first);
        showBrokers(Map.of(first, hangUp.as(first)));
        assertEquals(first, coordinator(CoordinatorKind.GROUP, group));
        int asked = hangUp.accepted();
        // When that broker refuses the role
        lookup.invalidate(CoordinatorKind.GROUP, group);
        // Then the group is looked up again at the other brokers, not at the one that refused
        assertEquals(cluster.groupCoordinator(group), coordinator(CoordinatorKind.GROUP, group));
        assertEquals(asked, hangUp.accepted(), "the broker that refused was not asked while others could be");
    }

    @Test
    void noBrokerAnsweringNamesNoCoordinator() {
        // Given one broker, which hangs up
        snapshot.set(TopologySnapshot.of("c", -1, List.of(hangUp.as(0)), List.of()));
        // When a group is looked up, Then no coordinator is named
        assertEquals(-1, coordinator(CoordinatorKind.GROUP, "nobody"));
    }

    private int coordinator(CoordinatorKind kind, String key) {
        return lookup.coordinator(kind, key).toCompletableFuture().join();
    }

    private static int firstBrokerId() {
        return KAFKA.cluster().brokerIds().stream().mapToInt(Integer::intValue).min().orElseThrow();
    }

    /** The cluster's brokers as the snapshot, with some replaced by other addresses under the same id. */
    private void showBrokers(Map<Integer, BrokerEndpoint> replaced) {
        KafkaCluster cluster = KAFKA.cluster();
        List<BrokerEndpoint> brokers = new ArrayList<>();
        for (int id : cluster.brokerIds()) {
            String[] hostPort = cluster.brokerAddress(id).split(":");
            brokers.add(replaced.getOrDefault(id, new BrokerEndpoint(id, hostPort[0], Integer.parseInt(hostPort[1]), null)));
        }
        snapshot.set(TopologySnapshot.of("c", -1, brokers, List.of()));
    }

    private static String groupCoordinatedBy(java.util.function.IntPredicate broker) {
        for (int i = 0; i < 100; i++) {
            String group = "group-" + i;
            if (broker.test(KAFKA.cluster().groupCoordinator(group))) {
                return group;
            }
        }
        throw new AssertionError("no group id among 100 has a coordinator that fits");
    }
}
