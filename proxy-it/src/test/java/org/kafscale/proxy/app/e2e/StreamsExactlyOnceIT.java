package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.SecretKeyStores;

/**
 * A Kafka Streams application with {@code exactly_once_v2} through the proxy: a word count whose
 * words go through a repartition topic into a changelogged store, stopped and started again in
 * the middle of its input, ends with every word counted exactly as often as it was written, and
 * no count it ever published is higher (a record processed twice would show as one).
 *
 * <p>Everything Streams does goes through the proxy: transactions (InitProducerId per task
 * producer, AddPartitionsToTxn, TxnOffsetCommit, EndTxn, each at its transactional id's
 * coordinator), a classic consumer group, read_committed fetches, and the admin calls that check
 * its internal topics.
 */
class StreamsExactlyOnceIT {
    private static final Duration DEADLINE = Duration.ofSeconds(120);
    private static final int PARTITIONS = 6;
    private static final int LINES = 1_200;
    private static final int WORDS_PER_LINE = 5;
    private static final List<String> VOCABULARY = List.of("alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
            "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa");
    private static final String STORE = "word-counts";
    private static final String TENANT_PREFIX = "team-a.";

    @RegisterExtension
    static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(3);
    @TempDir
    Path stateRoot;

    @ParameterizedTest(name = "{0} topology, {1} mode, in a virtual cluster: {2}, its topics encrypted: {3}")
    @CsvSource({"kafka, single, false, false", "etcd, brokers, false, false", "kafka, single, true, false",
            "kafka, single, true, true"})
    void wordCountThroughARepartitionTopicIsExactAfterARestart(String topology, String mode, boolean tenant,
                                                               boolean encrypted) throws Exception {
        // Given: the input and output topics, and for etcd every topic Streams will use published
        // as KafScale would (its internal topics made up front under the names Streams gives them).
        // In a virtual cluster the application is alice's: every name it uses is under team-a's
        // prefix in the real cluster, its internal topics included, which it creates itself.
        // Encrypted: every topic of the tenant is (its input, output, repartition and changelog
        // topics), and alice, the application, reads them in plaintext through the proxy.
        String app = "wordcount-" + topology + "-" + mode + (tenant ? "-tenant" : "") + (encrypted ? "-encrypted" : "");
        String prefix = tenant ? TENANT_PREFIX : "";
        String input = app + "-lines";
        String output = app + "-counts";
        List<String> topics = new ArrayList<>(List.of(input, output));
        createTopic(prefix + input, Map.of());
        createTopic(prefix + output, Map.of());
        if (topology.equals("etcd")) {
            String repartition = app + "-" + STORE + "-repartition";
            String changelog = app + "-" + STORE + "-changelog";
            createTopic(repartition, Map.of("cleanup.policy", "delete"));
            createTopic(changelog, Map.of("cleanup.policy", "compact"));
            topics.addAll(List.of(repartition, changelog));
            BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), topics);
            BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), topics);
        }
        List<String> lines = lines(new Random(42));
        Map<String, Long> expected = counts(lines);
        Path stateDir = stateRoot.resolve(app);
        try (RunningProxy proxy = topology.equals("etcd")
                ? RunningProxy.startOnEtcd(BACKENDS.cluster(), mode, BACKENDS.etcd().endpoint())
                : tenant ? RunningProxy.start(BACKENDS.cluster(), mode, tenantSettings(encrypted))
                : RunningProxy.start(BACKENDS.cluster(), mode)) {
            Properties client = tenant ? ScramUsers.client(proxy.bootstrap(), "alice") : new Properties();
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
            // When: half the lines, the application started, stopped once it has published
            // counts, the other half, and the application started again on the same state
            produce(client, input, lines.subList(0, LINES / 2));
            try (KafkaStreams first = wordCount(client, app, input, output, stateDir)) {
                first.start();
                Eventually.await(DEADLINE, "the first run publishes counts",
                        () -> assertTrue(!readCounts(client, output, Duration.ofSeconds(1)).isEmpty()));
                produce(client, input, lines.subList(LINES / 2, LINES));
                first.close(Duration.ofSeconds(60));
            }
            List<ConsumerRecord<String, Long>> published;
            try (KafkaStreams second = wordCount(client, app, input, output, stateDir)) {
                second.start();
                Eventually.await(DEADLINE, "the second run has counted every word",
                        () -> assertEquals(expected, latest(readCounts(client, output, Duration.ofSeconds(2)))));
                published = readCounts(client, output, Duration.ofSeconds(2));
                second.close(Duration.ofSeconds(60));
            }

            // Then: exact counts, and no count ever above the truth
            assertEquals(expected, latest(published));
            Map<String, Long> highest = new HashMap<>();
            published.forEach(r -> highest.merge(r.key(), r.value(), Math::max));
            assertEquals(expected, highest, "a count above the number of times the word was written");
        }
        if (tenant) {
            // and the application's internal topics and group are the tenant's, under its prefix
            Set<String> realTopics = BACKENDS.cluster().admin().listTopics().names().get(10, TimeUnit.SECONDS);
            assertTrue(realTopics.containsAll(Set.of(prefix + app + "-" + STORE + "-repartition",
                    prefix + app + "-" + STORE + "-changelog")), realTopics.toString());
            assertTrue(BACKENDS.cluster().admin().listGroups().all().get(10, TimeUnit.SECONDS).stream()
                    .anyMatch(g -> g.groupId().equals(prefix + app)), "the group " + prefix + app);
        }
        if (encrypted) {
            // and the broker holds ciphertext in every one of its topics
            for (String topic : List.of(input, output, app + "-" + STORE + "-repartition", app + "-" + STORE + "-changelog")) {
                assertCiphertextAtTheBroker(prefix + topic);
            }
        }
    }

    /** Every record of {@code topic}, read straight from the brokers, has the proxy's envelope and no word in clear. */
    private static void assertCiphertextAtTheBroker(String topic) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, BACKENDS.cluster().bootstrapServers());
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
        }
        assertFalse(records.isEmpty(), topic + " has records");
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (record.value() == null) {
                continue;
            }
            assertNotNull(record.headers().lastHeader("kafscale.enc"), topic + " record without envelope");
            String value = new String(record.value(), StandardCharsets.ISO_8859_1);
            assertTrue(VOCABULARY.stream().noneMatch(value::contains), topic + " holds a word in clear");
            assertNotEquals(Long.BYTES, record.value().length, topic + " holds a count in clear");
        }
    }

    /**
     * SASL on the listener, and a gateway file placing alice in team-a under {@link #TENANT_PREFIX};
     * when {@code encrypted}, every topic under the prefix encrypted, alice allowed to read them.
     */
    private Map<String, String> tenantSettings(boolean encrypted) throws Exception {
        String encryption = "";
        if (encrypted) {
            SecretKeyStores.aesKey(stateRoot.resolve("kek.p12"), "kek-1", "changeit");
            encryption = """
                    encryption:
                      - topics: "%s.*"
                        kek: {keystore: kek.p12, password: changeit, alias: kek-1}
                        allow: ["User:alice"]
                    """.formatted(TENANT_PREFIX.replace(".", "\\\\."));
        }
        return ScramUsers.gatewaySettings(stateRoot, "SCRAM-SHA-512", List.of("alice"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "%1$s"
                    groupPrefix: "%1$s"
                    transactionalIdPrefix: "%1$s"
                """.formatted(TENANT_PREFIX) + encryption);
    }

    private static KafkaStreams wordCount(Properties client, String app, String input, String output, Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.split(" ")))
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as(STORE))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        Properties props = copy(client);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "2");
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "3");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return new KafkaStreams(builder.build(), props);
    }

    private static void createTopic(String name, Map<String, String> configs) throws Exception {
        BACKENDS.cluster().admin().createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 3).configs(configs)))
                .all().get(30, TimeUnit.SECONDS);
        Eventually.await(DEADLINE, name + " has a leader for every partition",
                () -> assertEquals(PARTITIONS, BACKENDS.cluster().leaders(name).values().stream()
                        .filter(leader -> leader != KafkaCluster.NO_LEADER).count()));
    }

    private static List<String> lines(Random random) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < LINES; i++) {
            StringBuilder line = new StringBuilder();
            for (int w = 0; w < WORDS_PER_LINE; w++) {
                line.append(w == 0 ? "" : " ").append(VOCABULARY.get(random.nextInt(VOCABULARY.size())));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    private static Map<String, Long> counts(List<String> lines) {
        Map<String, Long> counts = new HashMap<>();
        lines.forEach(line -> Arrays.stream(line.split(" ")).forEach(word -> counts.merge(word, 1L, Long::sum)));
        return counts;
    }

    private static void produce(Properties client, String topic, List<String> lines) throws Exception {
        Properties props = copy(client);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < lines.size(); i++) {
                producer.send(new ProducerRecord<>(topic, String.format(Locale.ROOT, "line-%d", i), lines.get(i)));
            }
            producer.flush();
        }
    }

    /** Every committed count in the output topic, in partition order, read until a quiet poll. */
    private static List<ConsumerRecord<String, Long>> readCounts(Properties client, String topic, Duration quiet) {
        Properties props = copy(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<String, Long>> records = new ArrayList<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer())) {
            List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                consumer.poll(quiet).forEach(records::add);
            }
        }
        return records;
    }

    /** The client's settings (bootstrap, and SASL in a virtual cluster), for one client to add its own to. */
    private static Properties copy(Properties client) {
        Properties props = new Properties();
        props.putAll(client);
        return props;
    }

    private static Map<String, Long> latest(List<ConsumerRecord<String, Long>> records) {
        Map<String, Long> latest = new HashMap<>();
        records.forEach(r -> latest.put(r.key(), r.value()));
        return latest;
    }
}
