package org.kafscale.proxy.core.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class TopologySnapshotTest {

    private static final int PARTITIONS = 64;

    /** Brokers 1 and 2; "orders" p0..p63 owned alternately by 1 and 2; "payments" p0 owned by 2. */
    private static TopologySnapshot fromTheSource() {
        Map<Integer, PartitionLayout> orders = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            orders.put(p, new PartitionLayout(p, 1 + p % 2, 0, List.of(), List.of(), List.of()));
        }
        return TopologySnapshot.of("cluster", 1,
                List.of(new BrokerEndpoint(1, "b1", 9092, null), new BrokerEndpoint(2, "b2", 9092, null)),
                List.of(TopicLayout.of("orders", Uuid.randomUuid(), false, orders),
                        TopicLayout.of("payments", Uuid.randomUuid(), false,
                                Map.of(0, new PartitionLayout(0, 2, 0, List.of(), List.of(), List.of())))));
    }

    @Test
    void invalidatedPartitionHasNoOwner() {
        // Given
        TopologySnapshot snapshot = fromTheSource();
        // When: broker 1 says it does not lead orders-0
        snapshot.invalidate("orders", 0);
        // Then
        assertEquals(OptionalInt.empty(), snapshot.owner("orders", 0));
    }

    @Test
    void invalidationLeavesOtherPartitionsAndTopicsRouted() {
        // Given
        TopologySnapshot snapshot = fromTheSource();
        // When
        snapshot.invalidate("orders", 0);
        // Then: the same partition index of another topic, and the topic's other partitions, keep their owners
        assertEquals(OptionalInt.of(2), snapshot.owner("payments", 0));
        assertEquals(OptionalInt.of(2), snapshot.owner("orders", 1));
        assertEquals(OptionalInt.of(1), snapshot.owner("orders", 2));
    }

    @Test
    void aNewSnapshotFromTheSourceStartsWithNoInvalidatedRoutes() {
        // Given: a route dropped in the snapshot in force
        TopologySnapshot old = fromTheSource();
        old.invalidate("orders", 0);
        // When: the source's next read names the same owner again
        TopologySnapshot next = TopologySnapshot.of(old.clusterId(), old.controllerId(), old.brokers().values(),
                old.topics().values());
        // Then: the source's word wins in the new snapshot; the old one still has the route dropped
        assertEquals(OptionalInt.of(1), next.owner("orders", 0));
        assertEquals(OptionalInt.empty(), old.owner("orders", 0));
    }

    @Test
    void onlyTheFirstRefusalOfARouteReportsDroppingIt() {
        // Given
        TopologySnapshot snapshot = fromTheSource();
        // When
        boolean first = snapshot.invalidate("orders", 3);
        boolean second = snapshot.invalidate("orders", 3);
        // Then: a source can ask itself again once per route, not once per refusal
        assertTrue(first);
        assertFalse(second);
    }

    @Test
    void partitionsTheSnapshotDoesNotListAreNotRecorded() {
        // Given
        TopologySnapshot snapshot = fromTheSource();
        // When: a refusal names a topic or partition the snapshot does not know
        boolean unknownTopic = snapshot.invalidate("nobody-knows", 0);
        boolean unknownPartition = snapshot.invalidate("orders", PARTITIONS);
        // Then: nothing is kept, so what a snapshot records is bounded by its own size
        assertFalse(unknownTopic);
        assertFalse(unknownPartition);
        assertTrue(snapshot.invalidated().isEmpty());
    }

    @Test
    void concurrentInvalidationsFromManyThreadsAllTakeEffectAndEachRouteIsDroppedOnce() throws Exception {
        // Given: a large topic, and eight threads (as many event loops) that each refuse every even
        // partition, each starting at a different place so that they meet on the same partitions;
        // the race is run on several fresh snapshots, as one round on two cores may not interleave much
        int partitions = 20_000;
        int threads = 8;
        Map<Integer, PartitionLayout> layouts = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            layouts.put(p, new PartitionLayout(p, 1, 0, List.of(), List.of(), List.of()));
        }
        List<TopicLayout> topics = List.of(TopicLayout.of("events", Uuid.randomUuid(), false, layouts));
        List<BrokerEndpoint> brokers = List.of(new BrokerEndpoint(1, "b1", 9092, null));
        ExecutorService loops = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                TopologySnapshot snapshot = TopologySnapshot.of("cluster", 1, brokers, topics);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Integer>> drops = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int first = t * partitions / threads;
                    drops.add(loops.submit(() -> {
                        start.await();
                        int dropped = 0;
                        for (int i = 0; i < partitions; i++) {
                            int p = (first + i) % partitions;
                            if (p % 2 == 0 && snapshot.invalidate("events", p)) {
                                dropped++;
                            }
                        }
                        return dropped;
                    }));
                }
                // When: they all refuse at once
                start.countDown();
                int reportedDrops = 0;
                for (Future<Integer> d : drops) {
                    reportedDrops += d.get(30, TimeUnit.SECONDS);
                }
                // Then: every even partition lost its owner, each reported dropped by exactly one
                // thread, and every odd partition is still routed
                assertEquals(partitions / 2, reportedDrops, "round " + round);
                for (int p = 0; p < partitions; p++) {
                    assertEquals(p % 2 == 0 ? OptionalInt.empty() : OptionalInt.of(1), snapshot.owner("events", p),
                            "events-" + p + " in round " + round);
                }
            }
        } finally {
            loops.shutdownNow();
        }
    }
}
