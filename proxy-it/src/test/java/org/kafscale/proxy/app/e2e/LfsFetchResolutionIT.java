package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.testkit.DebianPython;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.S3Server;

/**
 * LFS resolution on Fetch through the application: envelopes produced through {@code /lfs/produce}
 * are read back whole through the proxy by a Java consumer, kcat and confluent-kafka, while the brokers hold only
 * envelopes; a tampered object or S3 down fails only its partition, and nothing unverified is sent.
 */
class LfsFetchResolutionIT {
    private static final String BUCKET = "proxy-lfs";
    private static final String SIZES = "media.sizes";
    private static final String HUGE = "media.huge";
    private static final String TAMPERED = "media.tampered";
    private static final String OUTAGE = "media.outage";
    private static final String OTHER = "other";
    private static final String TXN = "media.txn";
    private static final String FOREIGN = "media.foreign";
    private static final String GROUP = "media.group";
    private static final String RESOLVED = "kafscale-lfs-resolved";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static KafkaCluster cluster;
    private static S3Server s3;
    private static RunningProxy proxy;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        s3 = S3Server.start();
        s3.createBucket(BUCKET);
        cluster.createTopic(SIZES, 1);
        cluster.createTopic(HUGE, 1);
        cluster.createTopic(TAMPERED, 2);
        cluster.createTopic(OUTAGE, 2);
        cluster.createTopic(OTHER, 1);
        cluster.createTopic(TXN, 1);
        cluster.createTopic(FOREIGN, 1);
        cluster.createTopic(GROUP, 2);
        proxy = RunningProxy.start(cluster, "single", RunningProxy.lfsOn(s3, BUCKET,
                Map.of(LfsConfig.FETCH_RESOLVE_TOPICS, "media\\..*", LfsConfig.REWRITE_TOPICS, TXN)));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        s3.close();
        cluster.close();
    }

    @Test
    void javaConsumerAndKcatReadEveryPayloadWholeWhileTheBrokerHoldsEnvelopes() throws Exception {
        // Given envelopes of 1 KiB, 1 MiB and 8 MiB and a plain record between them
        List<byte[]> payloads = List.of(ascii(1024, 1), ascii(1 << 20, 2), ascii(8 << 20, 3));
        lfsProduce(SIZES, 0, "k-0", payloads.get(0));
        lfsProduce(SIZES, 0, "k-1", payloads.get(1));
        produceDirect(SIZES, 0, "plain".getBytes(StandardCharsets.UTF_8));
        lfsProduce(SIZES, 0, "k-3", payloads.get(2));
        List<byte[]> expected = List.of(payloads.get(0), payloads.get(1), "plain".getBytes(StandardCharsets.UTF_8),
                payloads.get(2));

        // When a Java consumer reads through the proxy (1 MiB per partition: the answers are cut)
        List<ConsumerRecord<byte[], byte[]>> read = consume(proxy.bootstrap(), SIZES, 4);

        // Then it gets the payloads byte for byte, keys and offsets kept, resolved ones marked
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(expected.get(i), read.get(i).value(), "record " + i);
            assertEquals(i, read.get(i).offset());
        }
        assertEquals("k-0", new String(read.get(0).key(), StandardCharsets.UTF_8));
        assertEquals(sha256(payloads.get(2)), text(read.get(3).headers().lastHeader(RESOLVED).value()));
        assertNull(read.get(2).headers().lastHeader(RESOLVED));

        // And kcat through the proxy gets the same values
        Kcat.Result kcat = Kcat.run(Duration.ofSeconds(60), null, List.of("-b", proxy.bootstrap(), "-t", SIZES,
                "-p", "0", "-C", "-o", "beginning", "-c", "4", "-e", "-q", "-f", "%o:%s\\n"));
        assertTrue(kcat.succeeded(), kcat.stderr());
        List<String> lines = kcat.lines();
        assertEquals(4, lines.size(), kcat.stderr());
        for (int i = 0; i < 4; i++) {
            assertEquals(i + ":" + text(expected.get(i)), lines.get(i), "kcat record " + i);
        }

        // And so does confluent-kafka (Python), by size and SHA-256
        DebianPython.Result python = DebianPython.run(CONFLUENT_CONSUMER, Duration.ofSeconds(90),
                List.of(proxy.bootstrap(), SIZES, "4"));
        assertTrue(python.succeeded(), python.stderr());
        List<String> printed = python.stdout().lines().toList();
        assertEquals(4, printed.size(), python.stderr());
        for (int i = 0; i < 4; i++) {
            assertEquals(i + " " + expected.get(i).length + " " + sha256(expected.get(i)), printed.get(i));
        }

        // And the broker itself holds envelopes
        List<ConsumerRecord<byte[], byte[]>> stored = consume(cluster.bootstrapServers(), SIZES, 4);
        for (int i : new int[] {0, 1, 3}) {
            JsonNode envelope = JSON.readTree(stored.get(i).value());
            assertEquals(1, envelope.get("kfs_lfs").asInt());
            assertNull(stored.get(i).headers().lastHeader(RESOLVED));
        }
        assertTrue(proxy.metric("kafscale_lfs_proxy_fetch_resolved_records_total") >= 3);
    }

    @Test
    void aSixtyFourMiBPayloadComesThroughWhole() throws Exception {
        byte[] payload = ascii(64 << 20, 4);
        lfsProduce(HUGE, 0, "big", payload);

        ConsumerRecord<byte[], byte[]> read = consume(proxy.bootstrap(), HUGE, 1).get(0);

        assertEquals(payload.length, read.value().length);
        assertEquals(sha256(payload), sha256(read.value()));
    }

    @Test
    void aTopicNotConfiguredGetsTheEnvelopeByteForByte() throws Exception {
        String envelope = lfsProduce(OTHER, 0, "k", ascii(2048, 5));

        ConsumerRecord<byte[], byte[]> read = consume(proxy.bootstrap(), OTHER, 1).get(0);

        assertEquals(envelope.strip(), text(read.value()));
        assertArrayEquals(consume(cluster.bootstrapServers(), OTHER, 1).get(0).value(),
                read.value());
    }

    @Test
    void aTamperedObjectFailsItsPartitionWhileTheOtherFlows() throws Exception {
        // Given an envelope on each partition, and partition 0's object overwritten with other bytes of its size
        byte[] original = ascii(4096, 6);
        JsonNode envelope = JSON.readTree(lfsProduce(TAMPERED, 0, "t", original));
        byte[] good = ascii(4096, 7);
        lfsProduce(TAMPERED, 1, "g", good);
        byte[] tampered = ascii(4096, 8);
        s3.client().putObject(b -> b.bucket(BUCKET).key(envelope.get("key").asText()),
                software.amazon.awssdk.core.sync.RequestBody.fromBytes(tampered));
        double failures = proxy.metric("kafscale_lfs_proxy_fetch_resolve_failures_total{reason=\"sha256\"");

        // When a consumer reads both partitions through the proxy
        Reads reads = readBoth(TAMPERED, () -> proxy.metric(
                "kafscale_lfs_proxy_fetch_resolve_failures_total{reason=\"sha256\"") > failures);

        // Then partition 1 flows, partition 0 is refused as corrupt, and no byte of it is delivered
        assertEquals(1, reads.records(1).size());
        assertArrayEquals(good, reads.records(1).get(0).value());
        assertTrue(reads.records(0).isEmpty());
        assertNotNull(reads.error, "the consumer is told of partition 0");
        assertTrue(reads.error.getMessage().contains(TAMPERED + "-0"), reads.error.getMessage());
    }

    @Test
    void withS3DownOnlyThePartitionsOfEnvelopesWaitAndTheyRecover() throws Exception {
        // Given an envelope on partition 0 and a plain record on partition 1
        byte[] payload = ascii(2048, 9);
        lfsProduce(OUTAGE, 0, "o", payload);
        produceDirect(OUTAGE, 1, "plain".getBytes(StandardCharsets.UTF_8));
        String unavailable = "kafscale_lfs_proxy_fetch_resolve_failures_total{reason=\"s3_unavailable\"";
        double failures = proxy.metric(unavailable);
        s3.pause();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(proxy.bootstrap())) {
            List<TopicPartition> both = List.of(new TopicPartition(OUTAGE, 0), new TopicPartition(OUTAGE, 1));
            consumer.assign(both);
            consumer.seekToBeginning(both);
            List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            try {
                // When S3 is down, the plain partition flows and the envelope's answers an error
                Eventually.await(Duration.ofSeconds(60), "the plain record and a refused S3 read", () -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(found::add);
                    return found.stream().anyMatch(r -> r.partition() == 1) && proxy.metric(unavailable) > failures;
                });
                assertTrue(found.stream().noneMatch(r -> r.partition() == 0), "no envelope and no payload yet");
            } finally {
                s3.resume();
            }
            // Then, S3 back, the payload arrives whole
            Eventually.await(Duration.ofSeconds(60), "the payload after S3 is back", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(found::add);
                return found.stream().anyMatch(r -> r.partition() == 0);
            });
            ConsumerRecord<byte[], byte[]> resolved = found.stream().filter(r -> r.partition() == 0).findFirst()
                    .orElseThrow();
            assertArrayEquals(payload, resolved.value());
        }
    }

    /** Reads partition 0 from the start and prints each record's offset, value size and SHA-256. */
    private static final String CONFLUENT_CONSUMER = """
            import hashlib, sys
            from confluent_kafka import Consumer, TopicPartition
            bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
            consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "lfs-read-python",
                                 "enable.auto.commit": False})
            consumer.assign([TopicPartition(topic, 0, 0)])
            seen = 0
            while seen < count:
                msg = consumer.poll(30)
                if msg is None:
                    sys.exit("no record within 30 s")
                if msg.error():
                    sys.exit(str(msg.error()))
                print(msg.offset(), len(msg.value()), hashlib.sha256(msg.value()).hexdigest(), flush=True)
                seen += 1
            consumer.close()
            """;

    @Test
    void anEnvelopeNamingAnotherTopicsObjectIsNotResolved() throws Exception {
        // Given an envelope written straight to the broker that points to another topic's object
        byte[] secret = ascii(3000, 13);
        String envelope = lfsProduce(OTHER, 0, "s", secret);
        produceDirect(FOREIGN, 0, envelope.strip().getBytes(StandardCharsets.UTF_8));
        String foreign = "kafscale_lfs_proxy_fetch_resolve_failures_total{reason=\"foreign_object\"";
        double before = proxy.metric(foreign);

        // When a consumer reads it through the proxy
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(proxy.bootstrap())) {
            TopicPartition partition = new TopicPartition(FOREIGN, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            KafkaException[] error = new KafkaException[1];
            Eventually.await(Duration.ofSeconds(60), "the partition refused", () -> {
                try {
                    consumer.poll(Duration.ofMillis(200)).forEach(found::add);
                } catch (KafkaException e) {
                    error[0] = e;
                }
                return error[0] != null && proxy.metric(foreign) > before;
            });

            // Then the partition is refused and neither the object nor the envelope is delivered
            assertTrue(found.isEmpty());
            assertTrue(error[0].getMessage().contains(FOREIGN + "-0"), error[0].getMessage());
        }
    }

    @Test
    void aGroupRebalancingMidReadGetsEveryPayload() throws Exception {
        // Given six envelopes on each of two partitions
        java.util.Set<String> expected = new java.util.HashSet<>();
        for (int i = 0; i < 12; i++) {
            byte[] payload = ascii(32 * 1024, 100 + i);
            expected.add(sha256(payload));
            lfsProduce(GROUP, i % 2, "g" + i, payload);
        }
        Map<String, Object> settings = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "lfs-read-group",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Map<String, String> delivered = new java.util.HashMap<>();
        try (KafkaConsumer<byte[], byte[]> first = new KafkaConsumer<>(settings);
             KafkaConsumer<byte[], byte[]> second = new KafkaConsumer<>(settings)) {
            // When one member has read a few and a second joins, both polling until every record is in
            first.subscribe(List.of(GROUP));
            Eventually.await(Duration.ofSeconds(60), "the first member's first records", () -> {
                collect(first.poll(Duration.ofMillis(200)), delivered);
                return delivered.size() >= 3;
            });
            first.commitSync();
            // The first member stops taking records until the second is in, so the rebalance is mid-read.
            first.pause(first.assignment());
            second.subscribe(List.of(GROUP));
            boolean[] joined = {false};
            Eventually.await(Duration.ofSeconds(90), "every record across the rebalance", () -> {
                collect(first.poll(Duration.ofMillis(100)), delivered);
                collect(second.poll(Duration.ofMillis(100)), delivered);
                if (!second.assignment().isEmpty()) {
                    joined[0] = true;
                    first.resume(first.assignment());
                }
                return delivered.size() >= 12;
            });
            assertTrue(joined[0], "the second member took partitions");
        }

        // Then each record came as its whole payload
        assertEquals(expected, new java.util.HashSet<>(delivered.values()));
    }

    /** Each record's payload SHA-256 by its partition and offset (a record read twice counts once). */
    private static void collect(Iterable<ConsumerRecord<byte[], byte[]>> records, Map<String, String> into) {
        for (ConsumerRecord<byte[], byte[]> record : records) {
            into.put(record.partition() + "@" + record.offset(), sha256(record.value()));
        }
    }

    @Test
    void readCommittedGetsThePayloadsOfCommittedTransactionsOnly() throws Exception {
        // Given envelopes written by a transactional producer through the LFS_BLOB rewrite: committed, aborted, committed
        byte[] first = ascii(100_000, 10);
        byte[] aborted = ascii(100_000, 11);
        byte[] last = ascii(100_000, 12);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "lfs-read-txn",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            producer.initTransactions();
            for (byte[] payload : List.of(first, aborted, last)) {
                producer.beginTransaction();
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(TXN, 0, null, payload);
                record.headers().add("LFS_BLOB", new byte[0]);
                producer.send(record).get();
                if (payload == aborted) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }

        // When a read_committed consumer reads through the proxy
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<byte[], byte[]>> read = RecordRoundTrip.firstRecords(props, TXN, 2);

        // Then it gets the two committed payloads whole (the markers and the aborted list were kept)
        assertArrayEquals(first, read.get(0).value());
        assertArrayEquals(last, read.get(1).value());
        // And the broker holds the three as envelopes
        List<ConsumerRecord<byte[], byte[]>> stored = consume(cluster.bootstrapServers(), TXN, 3);
        for (ConsumerRecord<byte[], byte[]> record : stored) {
            assertEquals(1, JSON.readTree(record.value()).get("kfs_lfs").asInt());
        }
    }

    /** What a consumer of both partitions of a topic got, and the error it was told. */
    private record Reads(List<ConsumerRecord<byte[], byte[]>> all, KafkaException error) {
        List<ConsumerRecord<byte[], byte[]>> records(int partition) {
            return all.stream().filter(r -> r.partition() == partition).toList();
        }
    }

    private static Reads readBoth(String topic, java.util.function.BooleanSupplier refused) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(proxy.bootstrap())) {
            List<TopicPartition> both = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(both);
            consumer.seekToBeginning(both);
            List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            KafkaException[] error = new KafkaException[1];
            Eventually.await(Duration.ofSeconds(60), "partition 1's record and partition 0 refused", () -> {
                try {
                    consumer.poll(Duration.ofMillis(200)).forEach(found::add);
                } catch (KafkaException e) {
                    error[0] = e;
                }
                return error[0] != null && found.stream().anyMatch(r -> r.partition() == 1) && refused.getAsBoolean();
            });
            return new Reads(found, error[0]);
        }
    }

    /** Produces {@code payload} through {@code /lfs/produce}; the envelope it answers. */
    private static String lfsProduce(String topic, int partition, String key, byte[] payload) throws Exception {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(proxy.lfsUrl("/lfs/produce")))
                        .header("X-Kafka-Topic", topic)
                        .header("X-Kafka-Partition", String.valueOf(partition))
                        .header("X-Kafka-Key", Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8)))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return answer.body();
    }

    private static void produceDirect(String topic, int partition, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            producer.send(new ProducerRecord<>(topic, partition, null, value)).get();
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    }

    /** The first {@code count} records of partition 0 of {@code topic}, read from {@code bootstrap}. */
    private static List<ConsumerRecord<byte[], byte[]>> consume(String bootstrap, String topic, int count) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return RecordRoundTrip.firstRecords(props, topic, count);
    }

    /** Printable bytes (no newline), so kcat's text output can be compared too. */
    private static byte[] ascii(int size, long seed) {
        Random random = new Random(seed);
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) ('a' + random.nextInt(26));
        }
        return bytes;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
