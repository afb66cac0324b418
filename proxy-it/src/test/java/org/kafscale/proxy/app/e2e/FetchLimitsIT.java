package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;

/**
 * A Fetch's limits through the proxy with real clients against three brokers, each partition led
 * by a different broker and holding about 3 MB: an answer merged from three brokers keeps to the
 * client's {@code fetch.max.bytes} (librdkafka refuses a larger one outright), and a consumer with
 * {@code client.rack}, on brokers with racks and the rack-aware replica selector (KIP-392), reads
 * everything instead of being sent to followers it cannot reach.
 */
class FetchLimitsIT {
    private static final String SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3, Map.of(
            0, Map.of("broker.rack", "rack-0", "replica.selector.class", SELECTOR),
            1, Map.of("broker.rack", "rack-1", "replica.selector.class", SELECTOR),
            2, Map.of("broker.rack", "rack-2", "replica.selector.class", SELECTOR)));

    private static final String TOPIC = "fetch-limits";
    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_PARTITION = 300;
    private static final int RECORDS = PARTITIONS * RECORDS_PER_PARTITION;
    /** About 10 KB a record: 3 MB a partition, so each broker alone could fill a 1 MB answer. */
    private static final String PADDING = "x".repeat(10_000);
    private static final Duration KCAT_DEADLINE = Duration.ofSeconds(120);

    /** Every record's value up to its padding ("p1-17"), by partition. */
    private static Map<Integer, List<String>> sent;

    @BeforeAll
    static void threePartitionsOfThreeMegabytesLedByThreeBrokers() throws Exception {
        KAFKA.cluster().createTopic(TOPIC, PARTITIONS);
        assertEquals(3, new HashSet<>(KAFKA.cluster().leaders(TOPIC).values()).size(), "leaders on three brokers");
        sent = produceDirectly();
    }

    @Test
    void kcatWithOneMegabyteFetchLimitReadsEveryRecordInSingleMode() {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single")) {
            // When librdkafka reads the topic with answers limited to 1 MB, refusing any larger one
            Kcat.Result consumed = Kcat.run(KCAT_DEADLINE, null, List.of("-b", proxy.bootstrap(), "-t", TOPIC,
                    "-C", "-o", "beginning", "-c", Integer.toString(RECORDS), "-e", "-q",
                    "-X", "fetch.max.bytes=1000000", "-X", "receive.message.max.bytes=1000512"));

            // Then it read every record once, without a refused answer
            assertTrue(consumed.succeeded(), consumed.stderr());
            assertFalse(consumed.stderr().contains("Invalid response size"), consumed.stderr());
            List<String> read = new ArrayList<>();
            consumed.lines().forEach(line -> read.add(unpadded(line)));
            assertEquals(RECORDS, read.size(), consumed.stderr());
            assertEquals(allSent(), new HashSet<>(read));
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void javaConsumerWithSmallFetchLimitReadsEveryRecord(String mode) {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When a Java consumer reads with answers limited to 100 KB
            Map<Integer, List<String>> received = RecordRoundTrip.consumeFromStart(proxy.bootstrap(), TOPIC, PARTITIONS,
                    RECORDS, Map.of(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 100_000));

            // Then every record arrived once, in order
            RecordRoundTrip.assertExactlyOnceInOrder(sent, unpadded(received));
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void javaConsumerWithClientRackReadsEveryRecord(String mode) {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When a Java consumer in rack-0 reads, two of whose partitions are led from other racks
            Map<Integer, List<String>> received = RecordRoundTrip.consumeFromStart(proxy.bootstrap(), TOPIC, PARTITIONS,
                    RECORDS, Map.of(ConsumerConfig.CLIENT_RACK_CONFIG, "rack-0"));

            // Then every record arrived once, in order: the leaders served it
            RecordRoundTrip.assertExactlyOnceInOrder(sent, unpadded(received));
        }
    }

    /** Produced to the brokers themselves: the proxy's Produce path is not what these tests are about. */
    private static Map<Integer, List<String>> produceDirectly() throws Exception {
        Properties props = RecordRoundTrip.idempotentProducerProperties(KAFKA.cluster().bootstrapServers());
        Map<Integer, List<String>> values = new HashMap<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < RECORDS; i++) {
                int partition = i % PARTITIONS;
                String value = "p" + partition + "-" + i;
                values.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
                acks.add(producer.send(new ProducerRecord<>(TOPIC, partition, null, value + "|" + PADDING)));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        }
        return values;
    }

    private static Set<String> allSent() {
        Set<String> all = new HashSet<>();
        sent.values().forEach(all::addAll);
        return all;
    }

    private static Map<Integer, List<String>> unpadded(Map<Integer, List<String>> received) {
        Map<Integer, List<String>> values = new HashMap<>();
        received.forEach((partition, list) -> values.put(partition, list.stream().map(FetchLimitsIT::unpadded).toList()));
        return values;
    }

    private static String unpadded(String value) {
        int bar = value.indexOf('|');
        return bar < 0 ? value : value.substring(0, bar);
    }
}
