package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.ClientFamily;
import org.kafscale.proxy.testkit.ClientPrograms;
import org.kafscale.proxy.testkit.ClientPrograms.ConsumedRecord;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every non-Java client family (librdkafka through confluent-kafka-python, kafka-python, kafkajs,
 * Sarama) produces through the proxy to a topic whose six partitions are led by three different
 * brokers, then consumes it through the proxy: every record arrives, each exactly once. These
 * clients key brokers by address, so an advertise mode that gives two broker ids one address
 * makes them read part of the partitions with no error; the modes tested here are those where
 * every family must read everything.
 */
class ClientFamiliesIT {
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientFamiliesIT.class);
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 60;
    /** How long a client may take to read everything before it gives up and prints what it has. */
    private static final Duration CLIENT_DEADLINE = Duration.ofSeconds(30);
    /** Shorter for the brokers-mode record: there some families are expected never to finish. */
    private static final Duration OBSERVE_DEADLINE = Duration.ofSeconds(10);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    private static final List<String> BROKERS_MODE_OBSERVATIONS = new ArrayList<>();

    static Stream<Arguments> familiesAndModes() {
        List<Arguments> cases = new ArrayList<>();
        for (String mode : List.of("single", "ports")) {
            for (ClientFamily family : ClientFamily.values()) {
                cases.add(Arguments.of(family, mode));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} in {1} mode")
    @MethodSource("familiesAndModes")
    void everyRecordProducedThroughTheProxyIsConsumedThroughItExactlyOnce(ClientFamily family, String mode) {
        // Given: six partitions, two led by each broker, and a proxy in this advertise mode
        Map<String, String> settings = modeSettings(mode);
        Optional<String> refused = modeRefusal(mode, settings);
        Assumptions.assumeTrue(refused.isEmpty(),
                () -> "advertise mode " + mode + " is not available in this build: " + refused.orElseThrow());
        String topic = spreadTopic(family, mode);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode, settings)) {
            // When: the client produces keyed records through the proxy, then consumes the topic through it
            ClientPrograms.Run run = ClientPrograms.produceThenConsume(family, proxy.bootstrap(), topic, RECORDS,
                    PARTITIONS, CLIENT_DEADLINE);

            // Then: what landed in Kafka is what the client sent, where it sent it...
            List<ConsumedRecord> inKafka = readDirect(topic);
            assertEquals(RECORDS, inKafka.size(), () -> "records in Kafka after " + run);
            for (ConsumedRecord record : inKafka) {
                int i = Integer.parseInt(record.key().substring(1));
                assertEquals(i % PARTITIONS, record.partition(), () -> record + " landed in the wrong partition");
            }
            // ...and the client read each of those records once, from every partition
            assertTrue(run.readEverything(), () -> run + "\nstdout: " + run.stdout());
            List<ConsumedRecord> read = sorted(run.records());
            assertEquals(inKafka, read, () -> "what " + family + " read through the proxy vs what is in Kafka; " + run);
            assertEquals(PARTITIONS, read.stream().map(ConsumedRecord::partition).distinct().count());
        }
    }

    /**
     * Records, for docs/testing.md, what {@code brokers} mode (every broker id at the proxy's one
     * address) does with each family; asserts nothing, because there these clients merge the ids and
     * read part of the partitions. Off by default (up to {@link #OBSERVE_DEADLINE} per family); run
     * with {@code -DclientFamilies.observeBrokersMode=true}. The summary is logged and written to
     * {@code target/client-families-brokers-mode.txt}.
     */
    @Test
    @EnabledIfSystemProperty(named = "clientFamilies.observeBrokersMode", matches = "true")
    void recordWhatBrokersModeDoesWithEachFamily() {
        for (ClientFamily family : ClientFamily.values()) {
            String topic = spreadTopic(family, "brokers");
            try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
                ClientPrograms.Run run = ClientPrograms.produceThenConsume(family, proxy.bootstrap(), topic, RECORDS,
                        PARTITIONS, OBSERVE_DEADLINE);
                List<ConsumedRecord> read = run.records();
                String observation = String.format("%s: exit %d, produced %d in Kafka, read %d records (%d distinct) "
                        + "from partitions %s", family, run.exitCode(), readDirect(topic).size(), read.size(),
                        read.stream().distinct().count(),
                        read.stream().map(ConsumedRecord::partition).collect(Collectors.toCollection(TreeSet::new)));
                LOGGER.info("brokers mode, {}", observation);
                BROKERS_MODE_OBSERVATIONS.add(observation);
            } catch (IllegalStateException e) {
                BROKERS_MODE_OBSERVATIONS.add(family + ": " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
    }

    @AfterAll
    static void writeBrokersModeObservations() throws IOException {
        if (!BROKERS_MODE_OBSERVATIONS.isEmpty()) {
            Files.write(Path.of("target", "client-families-brokers-mode.txt"), BROKERS_MODE_OBSERVATIONS);
        }
    }

    /**
     * {@code ports}: broker id N on the proxy's host at base + N. The range covers every broker id
     * of the cluster, on free loopback ports.
     */
    private static Map<String, String> modeSettings(String mode) {
        if (!mode.equals("ports")) {
            return Map.of();
        }
        int count = KAFKA.cluster().brokerIds().stream().max(Comparator.naturalOrder()).orElseThrow() + 1;
        return Map.of("KAFSCALE_PROXY_BROKER_PORT_BASE", Integer.toString(FreePorts.block(count)),
                "KAFSCALE_PROXY_BROKER_PORT_COUNT", Integer.toString(count));
    }

    /**
     * Why this build's ProxyConfig refuses the advertise mode in {@code settings}, if it does: a
     * mode that another change adds is tested as soon as the configuration accepts it. Any other
     * refusal is a mistake in these settings and fails the test rather than skipping it.
     */
    private static Optional<String> modeRefusal(String mode, Map<String, String> settings) {
        Map<String, String> env = new HashMap<>(settings);
        env.put(ProxyConfig.ADDR, "127.0.0.1:" + FreePorts.next());
        env.put(ProxyConfig.ADVERTISE_MODE, mode);
        env.put(ProxyConfig.BACKENDS, KAFKA.cluster().bootstrapServers());
        try {
            ProxyConfig.from(env);
            return Optional.empty();
        } catch (ConfigException e) {
            if (e.getMessage().startsWith(ProxyConfig.ADVERTISE_MODE + "=" + mode + " ")) {
                return Optional.of(e.getMessage());
            }
            throw e;
        }
    }

    private static String spreadTopic(ClientFamily family, String mode) {
        String topic = "families-" + family.label() + "-" + mode;
        KAFKA.cluster().createTopic(topic, RecordRoundTrip.leadersRoundRobin(KAFKA.cluster().brokerIds(), PARTITIONS));
        return topic;
    }

    /** Every record of {@code topic}, read straight from the brokers, sorted by partition and offset. */
    private static List<ConsumedRecord> readDirect(String topic) {
        List<TopicPartition> partitions = RecordRoundTrip.partitionsOf(topic, PARTITIONS);
        List<ConsumedRecord> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(RecordRoundTrip.consumerProperties(KAFKA.cluster().bootstrapServers()))) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Eventually.await(CLIENT_DEADLINE, "direct read of " + topic + " up to " + end, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    records.add(new ConsumedRecord(r.partition(), r.offset(), r.key()));
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return sorted(records);
    }

    private static List<ConsumedRecord> sorted(List<ConsumedRecord> records) {
        return records.stream()
                .sorted(Comparator.comparingInt(ConsumedRecord::partition).thenComparingLong(ConsumedRecord::offset))
                .toList();
    }
}
