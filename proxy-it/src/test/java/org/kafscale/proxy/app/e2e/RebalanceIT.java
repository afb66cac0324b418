package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Classic-protocol rebalances that take long or skip a rebalance, through the proxy as direct:
 * a JoinGroup the coordinator holds for a minute while a busy member finishes its work (longer
 * than the proxy's request timeout), and static membership, where a member that restarts with
 * its {@code group.instance.id} takes its partitions back without a rebalance.
 */
class RebalanceIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    /** How long the first member is busy between polls: longer than the proxy's 30 s request timeout. */
    private static final Duration BUSY = Duration.ofSeconds(60);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @Test
    void aJoinHeldAMinuteByABusyMemberCompletes() throws Exception {
        // Given: member A owns both partitions of the group, and is busy (does not poll) for a minute
        String topic = "long-rebalance";
        String group = "long-rebalance-group";
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single");
             KafkaConsumer<String, String> busy = consumer(proxy, group, null);
             KafkaConsumer<String, String> late = consumer(proxy, group, null)) {
            busy.subscribe(List.of(topic));
            Eventually.await(DEADLINE, "A owns both partitions", () -> {
                busy.poll(Duration.ofMillis(200));
                assertEquals(2, busy.assignment().size());
            });
            // When: B joins, and the coordinator holds B's JoinGroup until A rejoins after its work
            late.subscribe(List.of(topic));
            long joinedAt = System.nanoTime();
            Set<TopicPartition> lateAssignment = new HashSet<>();
            boolean busyBack = false;
            long deadline = System.nanoTime() + BUSY.plus(DEADLINE).toNanos();
            while (lateAssignment.isEmpty() && System.nanoTime() < deadline) {
                late.poll(Duration.ofMillis(500));
                lateAssignment.addAll(late.assignment());
                // A finishes its work once the coordinator has held B's join for BUSY, seen as the
                // group waiting in PreparingRebalance: the hold outlives the proxy's request timeout
                busyBack |= System.nanoTime() - joinedAt >= BUSY.toNanos() && preparingRebalance(group);
                if (busyBack) {
                    busy.poll(Duration.ofMillis(100));
                }
            }
            // Then: B got a partition, after A came back (the join really was held), and the two split the topic
            assertEquals(1, lateAssignment.size(), "B's assignment after the held JoinGroup");
            assertTrue(System.nanoTime() - joinedAt >= BUSY.toNanos(), "the rebalance waited for the busy member");
            Eventually.await(DEADLINE, "A keeps the other partition", () -> {
                busy.poll(Duration.ofMillis(200));
                late.poll(Duration.ofMillis(200));
                assertEquals(1, busy.assignment().size());
            });
            Set<TopicPartition> all = new HashSet<>(busy.assignment());
            all.addAll(late.assignment());
            assertEquals(2, all.size());
        }
    }

    @ParameterizedTest(name = "{0} mode")
    @ValueSource(strings = {"single", "brokers"})
    void aStaticMemberThatRestartsGetsItsPartitionsBackWithoutARebalance(String mode) throws Exception {
        // Given: two static members sharing four partitions
        String topic = "static-members-" + mode;
        String group = "static-group-" + mode;
        KAFKA.cluster().createTopic(topic, 4);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode);
             KafkaConsumer<String, String> stays = consumer(proxy, group, "stays")) {
            KafkaConsumer<String, String> restarts = consumer(proxy, group, "restarts");
            stays.subscribe(List.of(topic));
            restarts.subscribe(List.of(topic));
            Eventually.await(DEADLINE, "both members own two partitions", () -> {
                stays.poll(Duration.ofMillis(200));
                restarts.poll(Duration.ofMillis(200));
                assertEquals(2, stays.assignment().size());
                assertEquals(2, restarts.assignment().size());
            });
            Set<TopicPartition> before = Set.copyOf(restarts.assignment());
            Set<TopicPartition> staysBefore = Set.copyOf(stays.assignment());
            String generationBefore = stays.groupMetadata().generationId() + "";

            // When: one member closes (a static member sends no LeaveGroup) and comes back with its id
            restarts.close(Duration.ofSeconds(10));
            try (KafkaConsumer<String, String> back = consumer(proxy, group, "restarts")) {
                back.subscribe(List.of(topic));
                // Then: it gets its own partitions back, and the other member saw no rebalance
                Eventually.await(DEADLINE, "the restarted member owns its partitions again", () -> {
                    back.poll(Duration.ofMillis(200));
                    stays.poll(Duration.ofMillis(200));
                    assertEquals(before, back.assignment());
                });
                assertEquals(staysBefore, stays.assignment());
                assertEquals(generationBefore, stays.groupMetadata().generationId() + "");
            }
        }
    }

    /** The coordinator is holding the group's joins until every member has rejoined. */
    private static boolean preparingRebalance(String group) throws Exception {
        return KAFKA.cluster().admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                .get(group).groupState() == GroupState.PREPARING_REBALANCE;
    }

    private static KafkaConsumer<String, String> consumer(RunningProxy proxy, String group, String instanceId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, Long.toString(BUSY.multipliedBy(2).toMillis()));
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        if (instanceId != null) {
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }
}
