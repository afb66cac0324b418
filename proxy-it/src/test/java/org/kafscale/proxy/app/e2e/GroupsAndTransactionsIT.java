package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Group membership and transactions through the proxy: the coordinator APIs (JoinGroup,
 * SyncGroup, Heartbeat, OffsetCommit; InitProducerId, AddPartitionsToTxn, EndTxn) reach the right
 * coordinator, and isolation levels hold across partitions led by different brokers.
 */
class GroupsAndTransactionsIT {
    private static final int PARTITIONS = 6;
    private static final int MEMBERS = 3;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @Test
    void threeMembersOfOneGroupSplitSixPartitionsAndReadEveryRecordOnce() throws Exception {
        // Given: 1,500 records in six partitions, two led by each broker
        String topic = "three-members";
        String group = "three-members-group";
        KAFKA.cluster().createTopic(topic, RecordRoundTrip.leadersRoundRobin(KAFKA.cluster().brokerIds(), PARTITIONS));
        ExecutorService threads = Executors.newFixedThreadPool(MEMBERS);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, PARTITIONS, 0, 1_500);
            Map<Integer, Integer> endsBeforeSettling = new HashMap<>();
            sent.forEach((p, values) -> endsBeforeSettling.put(p, values.size()));

            // When: three members of one group start together, and once the group has settled 1,500 more arrive
            List<GroupMember> members = new ArrayList<>();
            List<Future<?>> running = new ArrayList<>();
            for (int m = 0; m < MEMBERS; m++) {
                GroupMember member = new GroupMember(proxy.bootstrap(), topic, group);
                members.add(member);
                running.add(threads.submit(member::run));
            }
            Eventually.await(DEADLINE, "each member to own partitions and to have read them to their end",
                    () -> groupSettledAtEnd(members, sent));
            Map<Integer, List<String>> sentLater =
                    RecordRoundTrip.produce(proxy.bootstrap(), topic, PARTITIONS, 1_500, 1_500);
            sentLater.forEach((p, values) -> sent.get(p).addAll(values));
            Eventually.await(DEADLINE, "each member to have read its partitions to their new end",
                    () -> groupSettledAtEnd(members, sent));
            members.forEach(GroupMember::stop);
            for (Future<?> member : running) {
                member.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }

            // Then: the group split the partitions among all three members, and each read records of its own
            Set<TopicPartition> owned = new HashSet<>();
            int ownerships = 0;
            for (GroupMember member : members) {
                Set<TopicPartition> assignment = member.progress.positions().keySet();
                assertFalse(assignment.isEmpty(), "a member without partitions: " + describe(members));
                assertTrue(member.received.stream().anyMatch(r -> r.offset() >= endsBeforeSettling.get(r.partition())),
                        "a member that read none of the records sent after the group settled: " + describe(members));
                owned.addAll(assignment);
                ownerships += assignment.size();
            }
            assertEquals(new HashSet<>(RecordRoundTrip.partitionsOf(topic, PARTITIONS)), owned,
                    "partitions owned: " + describe(members));
            assertEquals(PARTITIONS, ownerships, "no partition with two owners: " + describe(members));
            // Then: together the members read every record exactly once, in offset order within each partition
            List<ConsumedRecord> all = new ArrayList<>();
            members.forEach(member -> all.addAll(member.received));
            RecordRoundTrip.assertExactlyOnceInOrder(sent, inOffsetOrder(all));
        } finally {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void readCommittedConsumerSeesOnlyTheCommittedTransactionAndReadUncommittedSeesBoth(String mode) throws Exception {
        // Given: three partitions, one led by each broker
        String topic = "transactions-" + mode;
        KAFKA.cluster().createTopic(topic, RecordRoundTrip.leadersRoundRobin(KAFKA.cluster().brokerIds(), 3));
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When: one transaction of 100 records commits, and a second one of 100 records aborts
            Map<Integer, List<String>> committed;
            Map<Integer, List<String>> aborted;
            try (KafkaProducer<String, String> producer = TransactionalRecords.producer(proxy.bootstrap(), "txn-" + mode)) {
                producer.initTransactions();
                producer.beginTransaction();
                committed = TransactionalRecords.sendAll(producer, topic, 3, "committed-", 100);
                producer.commitTransaction();
                producer.beginTransaction();
                aborted = TransactionalRecords.sendAll(producer, topic, 3, "aborted-", 100);
                producer.abortTransaction();
            }
            // When: once the markers are written, a read_committed and a read_uncommitted consumer read to the end
            TransactionalRecords.awaitMarkers(KAFKA.cluster(), topic, 3);
            Map<Integer, List<String>> readCommitted =
                    TransactionalRecords.readToEnd(KAFKA.cluster(), proxy.bootstrap(), topic, 3, IsolationLevel.READ_COMMITTED);
            Map<Integer, List<String>> readUncommitted =
                    TransactionalRecords.readToEnd(KAFKA.cluster(), proxy.bootstrap(), topic, 3,
                            IsolationLevel.READ_UNCOMMITTED);

            // Then
            RecordRoundTrip.assertExactlyOnceInOrder(committed, readCommitted);
            Map<Integer, List<String>> everything = new HashMap<>();
            committed.forEach((p, values) -> everything.computeIfAbsent(p, x -> new ArrayList<>()).addAll(values));
            aborted.forEach((p, values) -> everything.computeIfAbsent(p, x -> new ArrayList<>()).addAll(values));
            assertEquals(200, everything.values().stream().mapToInt(List::size).sum(), "data records sent");
            RecordRoundTrip.assertExactlyOnceInOrder(everything, readUncommitted);
        }
    }

    // ---- consumer group ----

    /** One record as a member saw it. */
    private record ConsumedRecord(int partition, long offset, String value) {
    }

    /** What a member last reported: its assignment and its position in each assigned partition. */
    private record Progress(Map<TopicPartition, Long> positions) {
    }

    /** One member of the group, polling on its own thread until stopped. */
    private static final class GroupMember {
        private final String bootstrap;
        private final String topic;
        private final String group;
        /** Written by the member's thread; read by the test once the member's thread has finished. */
        private final List<ConsumedRecord> received = new ArrayList<>();
        private volatile Progress progress = new Progress(Map.of());
        private volatile boolean stopped;

        GroupMember(String bootstrap, String topic, String group) {
            this.bootstrap = bootstrap;
            this.topic = topic;
            this.group = group;
        }

        void run() {
            Properties props = RecordRoundTrip.consumerProperties(bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(topic));
                while (!stopped) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        received.add(new ConsumedRecord(r.partition(), r.offset(), r.value()));
                    }
                    Map<TopicPartition, Long> positions = new HashMap<>();
                    for (TopicPartition tp : consumer.assignment()) {
                        positions.put(tp, consumer.position(tp, Duration.ofSeconds(10)));
                    }
                    progress = new Progress(Map.copyOf(positions));
                }
            }
        }

        void stop() {
            stopped = true;
        }
    }

    /**
     * True when every member owns partitions, no partition has two owners, all partitions are
     * owned, and every member's position is the end of each partition it owns.
     */
    private static boolean groupSettledAtEnd(List<GroupMember> members, Map<Integer, List<String>> sent) {
        Set<Integer> owned = new HashSet<>();
        int ownedCount = 0;
        for (GroupMember member : members) {
            Map<TopicPartition, Long> positions = member.progress.positions();
            if (positions.isEmpty()) {
                return false;
            }
            for (Map.Entry<TopicPartition, Long> position : positions.entrySet()) {
                int partition = position.getKey().partition();
                owned.add(partition);
                ownedCount++;
                if (position.getValue() != sent.get(partition).size()) {
                    return false;
                }
            }
        }
        return ownedCount == PARTITIONS && owned.size() == PARTITIONS;
    }

    private static Map<Integer, List<String>> inOffsetOrder(Collection<ConsumedRecord> records) {
        return records.stream()
                .sorted(Comparator.comparingInt(ConsumedRecord::partition).thenComparingLong(ConsumedRecord::offset))
                .collect(Collectors.groupingBy(ConsumedRecord::partition,
                        Collectors.mapping(ConsumedRecord::value, Collectors.toList())));
    }

    private static String describe(List<GroupMember> members) {
        return members.stream()
                .map(m -> "member owning " + m.progress.positions().keySet() + " read " + m.received.size() + " records")
                .collect(Collectors.joining("; "));
    }
}
