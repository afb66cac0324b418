package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * A broker stopped while a {@code single}-mode consumer reads through the proxy with read-ahead
 * on: the proxy holds, or is waiting for, an answer read ahead from that broker when it goes.
 * Its partitions (one replica each) have no leader until it is back, the others go on; once it
 * is back the consumer reads to the end. Every record must arrive once, in order, at its offset:
 * a read-ahead answer adopted from the lost broker, or one dropped with its connection, must not
 * skip or repeat any. The class-level leak detector (paranoid) checks what was dropped is freed.
 */
class ReadAheadBrokerLossIT {
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 12_000;
    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final String TOPIC = "read-ahead-loss";
    private static final String ADOPTED = "kafscale_proxy_fetch_read_aheads_total{outcome=\"adopted\"";

    private static KafkaCluster cluster;
    private static Map<Integer, List<String>> sent;

    @BeforeAll
    static void recordsOnThreeBrokers() throws Exception {
        cluster = KafkaCluster.start(3);
        cluster.createTopic(TOPIC, RecordRoundTrip.leadersRoundRobin(cluster.brokerIds(), PARTITIONS));
        sent = RecordRoundTrip.produce(cluster.bootstrapServers(), TOPIC, PARTITIONS, RECORDS);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void aBrokerStoppedMidReadAheadLosesAndRepeatsNoRecord() throws Exception {
        int lost = cluster.leaders(TOPIC).get(0);
        Map<Integer, List<String>> received = new HashMap<>();
        Map<Integer, Long> nextOffset = new HashMap<>();
        List<String> outOfPlace = new ArrayList<>();
        double adoptedBeforeTheLoss;
        try (RunningProxy proxy = RunningProxy.start(cluster, "single")) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProperties(proxy.bootstrap()))) {
                List<TopicPartition> all = RecordRoundTrip.partitionsOf(TOPIC, PARTITIONS);
                consumer.assign(all);
                consumer.seekToBeginning(all);
                // Given a consumer a third of the way through, with read-ahead answers being taken
                pollUntil(consumer, received, nextOffset, outOfPlace, () -> count(received) >= RECORDS / 3
                        && proxy.metric(ADOPTED) > 0);
                adoptedBeforeTheLoss = proxy.metric(ADOPTED);

                // When the leader of partition 0 stops, the consumer reads on, and the broker comes back
                cluster.stopBroker(lost);
                int beforeTheRestart = count(received);
                pollUntil(consumer, received, nextOffset, outOfPlace,
                        () -> count(received) > beforeTheRestart + 500 || count(received) >= RECORDS);
                cluster.restartBroker(lost);
                pollUntil(consumer, received, nextOffset, outOfPlace, () -> count(received) >= RECORDS);
            }
            Eventually.await(DEADLINE, "no read-ahead held once the consumer is gone",
                    () -> proxy.metric("kafscale_proxy_fetch_read_ahead_bytes") == 0.0);
        }

        // Then the proxy was reading ahead when the broker went, and every record arrived once, in order
        assertTrue(adoptedBeforeTheLoss > 0, "read-aheads adopted before the broker stopped: " + adoptedBeforeTheLoss);
        assertTrue(outOfPlace.isEmpty(), "records not at the next offset of their partition: " + outOfPlace);
        RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
    }

    private static Properties consumerProperties(String bootstrap) {
        Properties props = RecordRoundTrip.consumerProperties(bootstrap);
        // Small fetches: many Fetches per partition, so most meet an answer read ahead.
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8192);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        return props;
    }

    /** Polls until {@code done}, noting each record and any record not at its partition's next offset. */
    private static void pollUntil(KafkaConsumer<String, String> consumer, Map<Integer, List<String>> received,
                                  Map<Integer, Long> nextOffset, List<String> outOfPlace, BooleanSupplier done) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "consumer stalled at " + count(received) + " of " + RECORDS);
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                long expected = nextOffset.getOrDefault(record.partition(), 0L);
                if (record.offset() != expected) {
                    outOfPlace.add(record.partition() + "@" + record.offset() + " (expected " + expected + ")");
                }
                nextOffset.put(record.partition(), record.offset() + 1);
                received.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
            }
        }
    }

    private static int count(Map<Integer, List<String>> received) {
        return received.values().stream().mapToInt(List::size).sum();
    }
}
