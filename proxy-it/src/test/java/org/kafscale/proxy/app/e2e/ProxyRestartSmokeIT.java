package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Regression smoke test from a field report: after the proxy was restarted, a Fetch from a low
 * offset returned no records and the client saw no error. A fresh consumer of a new proxy on the
 * same address must read back what was produced through the old one.
 */
class ProxyRestartSmokeIT {
    private static final int RECORDS = 100;
    private static final Duration READ_DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void freshConsumerReadsFromOffsetZeroThroughAProxyRestartedOnTheSamePort(String mode) throws Exception {
        // Given: a hundred records at offsets 0..99 of one partition, produced through a proxy that is then closed
        String topic = "restart-" + mode;
        KAFKA.cluster().createTopic(topic, RecordRoundTrip.leadersRoundRobin(KAFKA.cluster().brokerIds(), 3));
        int port;
        List<String> sent;
        try (RunningProxy before = RunningProxy.start(KAFKA.cluster(), mode)) {
            port = before.port();
            sent = RecordRoundTrip.produce(before.bootstrap(), topic, 1, RECORDS).get(0);
        }
        // When: a new proxy listens on the same port and a fresh consumer reads the partition from offset 0
        List<String> received;
        try (RunningProxy after = RunningProxy.startOnPort(KAFKA.cluster(), mode, port)) {
            received = readFromOffsetZero(after.bootstrap(), new TopicPartition(topic, 0));
        }
        // Then
        assertEquals(sent, received, "records of partition 0 read through the restarted proxy");
    }

    /** Assigns the partition, seeks to offset 0 and reads until {@link #RECORDS} records came or the deadline passed. */
    private static List<String> readFromOffsetZero(String bootstrap, TopicPartition partition) {
        Properties props = RecordRoundTrip.consumerProperties(bootstrap);
        List<String> received = new ArrayList<>();
        long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            while (received.size() < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    received.add(r.value());
                }
            }
        }
        return received;
    }
}
