package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * A share group (KIP-932) of two {@link KafkaShareConsumer}s through the proxy, over a topic whose
 * six partitions are led by three brokers: every record is delivered once and acknowledged (the
 * group has no lag left on any partition), and the admin client describes the
 * group through the proxy. Kafka 4.3 brokers serve share groups without extra settings
 * (share.version is finalized at 1 by default).
 */
class ShareGroupsIT {
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 120;
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void twoShareConsumersReadEveryRecordOnceThroughTheProxy(String mode) throws Exception {
        // Given a topic whose partitions are led by all three brokers, holding records, and a share
        // group that starts at the earliest offset
        String topic = "shared-" + mode;
        String group = "share-group-" + mode;
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        Map<Integer, Integer> leaders = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            leaders.put(p, brokers.get(p % brokers.size()));
        }
        KAFKA.cluster().createTopic(topic, leaders);
        KAFKA.cluster().admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS);

        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode); Admin admin = admin(proxy)) {
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, PARTITIONS, RECORDS);

            // When two members of the group consume through the proxy until every record has arrived
            Map<String, Integer> deliveries = new HashMap<>();
            ShareGroupDescription described;
            try (KafkaShareConsumer<String, String> first = shareConsumer(proxy, group);
                 KafkaShareConsumer<String, String> second = shareConsumer(proxy, group)) {
                first.subscribe(List.of(topic));
                second.subscribe(List.of(topic));
                Eventually.await(DEADLINE, "every record delivered", () -> {
                    for (KafkaShareConsumer<String, String> member : List.of(first, second)) {
                        for (ConsumerRecord<String, String> record : member.poll(Duration.ofMillis(200))) {
                            deliveries.merge(record.value(), 1, Integer::sum);
                        }
                    }
                    return deliveries.size() == RECORDS;
                });
                // Records of the last poll are acknowledged (implicit mode) by this commit.
                first.commitSync();
                second.commitSync();
                described = admin.describeShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
            }

            // Then each record was delivered exactly once
            List<String> expected = new ArrayList<>();
            sent.values().forEach(expected::addAll);
            assertEquals(Set.copyOf(expected), deliveries.keySet());
            assertEquals(List.of(), deliveries.entrySet().stream().filter(e -> e.getValue() != 1).map(Map.Entry::getKey).toList(),
                    "records delivered more than once");
            // and the admin client, through the proxy, saw both members at the proxy's address
            assertEquals(2, described.members().size(), () -> "members " + described.members());
            assertEquals("127.0.0.1", described.coordinator().host());
            assertEquals(proxy.port(), described.coordinator().port());
            // and every record was acknowledged: the group's lag is 0 on every partition
            Map<TopicPartition, Long> noLag = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
            sent.keySet().forEach(p -> noLag.put(new TopicPartition(topic, p), 0L));
            Eventually.await(DEADLINE, "no lag on any partition", () ->
                    assertEquals(noLag, lags(admin, group, noLag.keySet())));
        }
    }

    /** The group's lag per partition (records not yet acknowledged), as the admin client reads it through the proxy. */
    private static Map<TopicPartition, Long> lags(Admin admin, String group, Set<TopicPartition> partitions)
            throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> offsets = admin.listShareGroupOffsets(
                Map.of(group, new ListShareGroupOffsetsSpec().topicPartitions(partitions)))
                .partitionsToOffsetInfo(group).get(30, TimeUnit.SECONDS);
        Map<TopicPartition, Long> lags = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        offsets.forEach((p, o) -> lags.put(p, o == null ? -1L : o.lag().orElse(-1L)));
        return lags;
    }

    private static KafkaShareConsumer<String, String> shareConsumer(RunningProxy proxy, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaShareConsumer<>(props);
    }

    private static Admin admin(RunningProxy proxy) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        return Admin.create(props);
    }
}
