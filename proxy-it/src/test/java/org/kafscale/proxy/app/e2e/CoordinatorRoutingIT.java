package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * Group requests reach each group's real coordinator, an OffsetFetch naming groups with
 * different coordinators is split per coordinator and merged, and DescribeProducers is split by
 * partition owner.
 */
class CoordinatorRoutingIT {
    private static final String TOPIC = "committed";
    private static final List<String> GROUPS = List.of("g-alpha", "g-bravo", "g-charlie", "g-delta", "g-echo", "g-foxtrot");

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(3);
        cluster.createTopic(TOPIC, 3);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void offsetsCommittedForManyGroupsAreReadBackInOneAdminCall(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // Given: each group commits its own offset, through the proxy
            Map<String, Long> committed = new HashMap<>();
            for (int i = 0; i < GROUPS.size(); i++) {
                String group = GROUPS.get(i) + "-" + mode;
                long offset = 10L + i;
                admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(offset)))
                        .all().get(30, TimeUnit.SECONDS);
                committed.put(group, offset);
            }
            assertTrue(coordinators(committed.keySet()).size() > 1, "the groups have different coordinators");

            // When: one call for all groups (the admin client batches them per coordinator node)
            Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
            committed.keySet().forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
            Map<String, Map<TopicPartition, OffsetAndMetadata>> read =
                    admin.listConsumerGroupOffsets(specs).all().get(30, TimeUnit.SECONDS);

            // Then
            for (Map.Entry<String, Long> group : committed.entrySet()) {
                assertEquals(group.getValue(), read.get(group.getKey()).get(new TopicPartition(TOPIC, 0)).offset(),
                        "offset of " + group.getKey());
            }
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void listingGroupsShowsGroupsOfEveryCoordinatorOnce(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // Given: groups with offsets, coordinated by different brokers
            Set<String> groups = new HashSet<>();
            for (String name : GROUPS) {
                String group = name + "-listed-" + mode;
                admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(TOPIC, 1), new OffsetAndMetadata(1)))
                        .all().get(30, TimeUnit.SECONDS);
                groups.add(group);
            }
            assertTrue(coordinators(groups).size() > 1, "the groups have different coordinators");
            // When
            List<String> listed = admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
                    .map(g -> g.groupId()).filter(groups::contains).toList();
            // Then: every group, each once
            assertEquals(groups, new HashSet<>(listed));
            assertEquals(groups.size(), listed.size(), "no group listed twice");
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void activeProducersOfPartitionsOnThreeBrokersAreDescribedInOneCall(String mode) throws Exception {
        // Given: an idempotent producer wrote to partitions led by three different brokers
        String topic = "described-" + mode;
        List<Integer> brokers = cluster.brokerIds();
        cluster.createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            RecordRoundTrip.produce(proxy.bootstrap(), topic, 3, 30);
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1),
                    new TopicPartition(topic, 2));
            // When
            var described = admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS);
            // Then: each partition names the one producer that wrote to it
            for (TopicPartition partition : partitions) {
                assertEquals(1, described.get(partition).activeProducers().size(), "producers of " + partition);
            }
        }
    }

    private static Set<Integer> coordinators(Set<String> groups) throws Exception {
        Set<Integer> ids = new HashSet<>();
        for (var description : cluster.admin().describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS).values()) {
            ids.add(description.coordinator().id());
        }
        return ids;
    }

    private static Admin admin(RunningProxy proxy) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        return Admin.create(props);
    }
}
