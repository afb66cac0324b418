package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import ch.qos.logback.classic.Level;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.Eventually;

/**
 * The watches {@link EtcdTopology} keeps on a real etcd: each starts at the revision after the read
 * it follows, and a broken one is replaced, never added to. The backstop read is an hour away, so
 * everything the topology learns here it learns from its watches and the reads they cause.
 */
class EtcdWatchesIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);
    private static final List<String> PREFIXES =
            List.of(KafscaleKeys.SNAPSHOT, KafscaleKeys.PARTITION_LEASES, KafscaleKeys.GROUP_LEASES);
    private static final int FAILURES = 100;

    @RegisterExtension
    static final OrdersInEtcd ETCD = new OrdersInEtcd();

    @RegisterExtension
    final DiscoveryLogs logs = new DiscoveryLogs();

    @Test
    void changeMadeBetweenTheFirstReadAndTheStartOfItsWatchesIsSeen() {
        // Given: a topology that has read etcd and asked for its watches, which have not reached etcd
        HeldWatchesClient client = new HeldWatchesClient(EtcdFixtures.client(ETCD.etcd().endpoint()));
        try (EtcdTopology topology = startedWithWatchesHeld(client)) {
            assertEquals(OptionalInt.of(0), topology.snapshot().owner("orders", 0));
            // When: orders-0 moves to broker 1, and only then do the watches start
            ETCD.kafscale().putPartitionLease("orders", 0, 1);
            client.releaseWatches();
            // Then
            awaitOwnerOfOrders0(topology, 1, "the move to reach the topology through its watch");
        }
    }

    @Test
    void hundredWatchFailuresLeaveOneWatcherPerPrefixAndItStillSeesChanges() {
        // Given: a started topology, re-watching 1 ms after a failure
        HeldWatchesClient client = new HeldWatchesClient(EtcdFixtures.client(ETCD.etcd().endpoint()));
        try (EtcdTopology topology = EtcdFixtures.topology(client, TTL, EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT,
                Duration.ofMillis(1))) {
            topology.start().join();
            awaitOneWatcherPerPrefix(client);
            // When: the watches fail 100 times, each failure waited out before the next
            for (int i = 0; i < FAILURES; i++) {
                String prefix = PREFIXES.get(i % PREFIXES.size());
                client.breakWatch(prefix);
                Eventually.await(DEADLINE, "a watch on " + prefix + " again after failure " + (i + 1),
                        () -> client.liveWatchers(prefix) == 1);
            }
            // Then: exactly one watcher per prefix, and it reports a change
            for (String prefix : PREFIXES) {
                assertEquals(1, client.liveWatchers(prefix), "watchers on " + prefix);
            }
            ETCD.kafscale().putPartitionLease("orders", 0, 1);
            awaitOwnerOfOrders0(topology, 1, "the move to reach the topology through the last watch");
        }
    }

    @Test
    void watchWhoseStartRevisionWasCompactedReadsAgainAndWatchesAgain() {
        // Given: a topology whose watches are to start at a revision etcd will have compacted away
        HeldWatchesClient client = new HeldWatchesClient(EtcdFixtures.client(ETCD.etcd().endpoint()));
        try (EtcdTopology topology = startedWithWatchesHeld(client)) {
            ETCD.kafscale().putPartitionLease("orders", 0, 1);
            compactPastTheLastChange();
            // When
            client.releaseWatches();
            // Then: etcd is read again (the move is seen) and watched from then on
            awaitOwnerOfOrders0(topology, 1, "the move to reach the topology by the read after the compaction");
            assertFalse(logs.lines(Level.WARN, "its start revision was compacted").isEmpty(), "said why it watched again");
            awaitOneWatcherPerPrefix(client);
            ETCD.kafscale().putPartitionLease("orders", 0, 0);
            awaitOwnerOfOrders0(topology, 0, "a later move to reach the topology through the new watch");
            for (String prefix : PREFIXES) {
                assertEquals(1, client.liveWatchers(prefix), "watchers on " + prefix);
            }
        }
    }

    /** A topology that has read etcd and asked for its three watches, which have not reached etcd. */
    private static EtcdTopology startedWithWatchesHeld(HeldWatchesClient client) {
        client.holdWatches();
        EtcdTopology topology = EtcdFixtures.topology(client, TTL, EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT);
        topology.start().join();
        assertEquals(PREFIXES.size(), client.waitingWatches(), "watches asked for by the time start() completes");
        return topology;
    }

    private static void awaitOwnerOfOrders0(EtcdTopology topology, int broker, String what) {
        Eventually.await(DEADLINE, what, () -> topology.snapshot().owner("orders", 0).equals(OptionalInt.of(broker)));
    }

    private static void awaitOneWatcherPerPrefix(HeldWatchesClient client) {
        Eventually.await(DEADLINE, "one watcher per prefix",
                () -> PREFIXES.stream().allMatch(prefix -> client.liveWatchers(prefix) == 1));
    }

    /**
     * Writes a key outside KafScale's and compacts etcd's history up to that write: no watch can
     * start at a revision before it, the last KafScale change's included.
     */
    private static void compactPastTheLastChange() {
        try (Client direct = EtcdFixtures.client(ETCD.etcd().endpoint())) {
            var kv = direct.getKVClient();
            long now = kv.put(EtcdReader.bytes("/compaction-marker"), EtcdReader.bytes("x")).join().getHeader().getRevision();
            kv.compact(now).join();
        }
    }
}
