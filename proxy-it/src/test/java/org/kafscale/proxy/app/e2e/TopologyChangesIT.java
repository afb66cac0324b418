package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Topic changes show through the proxy (plain-Kafka topology): a change made through the proxy is
 * in the very next all-topics Metadata, however long the periodic refresh; a change made by
 * someone else shows at the default refresh.
 */
class TopologyChangesIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** A refresh no test outlasts: whatever shows came from the change itself, not from a periodic read. */
    private static final Map<String, String> NO_PERIODIC_REFRESH = Map.of(ProxyConfig.METADATA_REFRESH_MS, "3600000");

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void aTopicCreatedThroughTheProxyIsInTheNextAllTopicsMetadata(String mode) throws Exception {
        // Given a proxy whose periodic refresh never comes during the test
        String topic = "created-" + mode;
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode, NO_PERIODIC_REFRESH);
             Admin admin = admin(proxy);
             KafkaConsumer<String, String> consumer = consumer(proxy)) {
            // When a client creates a topic through it
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all()
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            // Then the client's next all-topics Metadata lists it, with every partition
            assertTrue(admin.listTopics().names().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).contains(topic),
                    "all-topics Metadata after CreateTopics lists " + topic);
            assertEquals(4, partitions(consumer, topic), "partitions of " + topic);
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void partitionsAddedThroughTheProxyAreInTheNextAllTopicsMetadata(String mode) throws Exception {
        // Given a topic of two partitions, known to a proxy whose periodic refresh never comes
        String topic = "grown-" + mode;
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode, NO_PERIODIC_REFRESH);
             Admin admin = admin(proxy);
             KafkaConsumer<String, String> consumer = consumer(proxy)) {
            assertEquals(2, partitions(consumer, topic));
            // When a client adds partitions through it
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5))).all()
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            // Then its next all-topics Metadata shows them
            assertEquals(5, partitions(consumer, topic), "partitions of " + topic + " after CreatePartitions");
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void aTopicDeletedThroughTheProxyIsGoneFromTheNextAllTopicsMetadata(String mode) throws Exception {
        // Given a topic known to a proxy whose periodic refresh never comes
        String topic = "deleted-" + mode;
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode, NO_PERIODIC_REFRESH);
             Admin admin = admin(proxy)) {
            assertTrue(admin.listTopics().names().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).contains(topic));
            // When a client deletes it through the proxy
            admin.deleteTopics(List.of(topic)).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            // Then its next all-topics Metadata no longer lists it
            assertFalse(admin.listTopics().names().get(DEADLINE.toSeconds(), TimeUnit.SECONDS).contains(topic),
                    "all-topics Metadata after DeleteTopics lists " + topic);
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void partitionsAddedDirectlyOnTheClusterShowAtTheDefaultRefresh(String mode) throws Exception {
        // Given a topic of two partitions and a proxy at the default refresh
        String topic = "grown-directly-" + mode;
        KAFKA.cluster().createTopic(topic, 2);
        String defaultRefresh = ConfigKey.METADATA_REFRESH_MS.defaultValue().orElseThrow();
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode,
                Map.of(ProxyConfig.METADATA_REFRESH_MS, defaultRefresh));
             KafkaConsumer<String, String> consumer = consumer(proxy)) {
            assertEquals(2, partitions(consumer, topic));
            // When partitions are added on the cluster, not through the proxy
            KAFKA.cluster().admin().createPartitions(Map.of(topic, NewPartitions.increaseTo(6))).all()
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            // Then the proxy's all-topics Metadata shows them once it has read the cluster again
            Eventually.await(DEADLINE, "the proxy to list 6 partitions of " + topic,
                    () -> partitions(consumer, topic) == 6);
        }
    }

    /** The topic's partition count in an all-topics Metadata through the proxy (0 when it is not listed). */
    private static int partitions(KafkaConsumer<String, String> consumer, String topic) {
        List<PartitionInfo> partitions = consumer.listTopics(DEADLINE).get(topic);
        return partitions == null ? 0 : partitions.size();
    }

    private static Admin admin(RunningProxy proxy) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap()));
    }

    private static KafkaConsumer<String, String> consumer(RunningProxy proxy) {
        Properties props = RecordRoundTrip.consumerProperties(proxy.bootstrap());
        return new KafkaConsumer<>(props);
    }
}
