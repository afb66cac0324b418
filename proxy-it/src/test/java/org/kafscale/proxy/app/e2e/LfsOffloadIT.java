package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.S3Server;
import org.kafscale.proxy.testkit.SecretKeyStores;
import org.kafscale.proxy.testkit.TempDirs;

/**
 * Offload by size through the application: plain producers (kafka-clients and kcat, neither
 * knowing of LFS) send 10 MiB records through the proxy to an offload topic of a broker that takes
 * at most about 1 MiB; read straight from the broker, the topic holds small envelopes whose objects
 * hold the bytes. Small records, tombstones and topics not configured pass as they were sent.
 */
class LfsOffloadIT {
    private static final String BUCKET = "proxy-lfs";
    private static final String JAVA_TOPIC = "offload.java";
    private static final String KCAT_TOPIC = "offload.kcat";
    private static final String PLAIN = "plain";
    private static final String PAIR = "offload.pair";
    /** Also covered by an encryption rule: sealed first, then offloaded, so S3 holds ciphertext. */
    private static final String SEALED = "offload.sealed";
    private static final int THRESHOLD = 256 * 1024;
    private static final int LARGE = 10 * 1024 * 1024;
    /** Above the producers' default limits (1 MiB), which a producer of 10 MiB records must raise. */
    private static final int PRODUCER_MAX = 16 * 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static KafkaCluster cluster;
    private static S3Server s3;
    private static RunningProxy proxy;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        cluster = KafkaCluster.start(1);
        s3 = S3Server.start();
        cluster.createTopic(JAVA_TOPIC, 1);
        cluster.createTopic(KCAT_TOPIC, 1);
        cluster.createTopic(PLAIN, 1);
        cluster.createTopic(PAIR, 2);
        cluster.createTopic(SEALED, 1);
        Path keystore = SecretKeyStores.aesKey(dir.resolve("kek.p12"), "kek-1", "changeit");
        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                encryption:
                  - topics: "offload\\\\.sealed"
                    kek: {keystore: %s, password: changeit, alias: kek-1}
                    allow: ["User:ANONYMOUS"]
                """.formatted(keystore));
        s3.createBucket(BUCKET);
        // The frame limit stays at its default (100 MiB), which a request with a 10 MiB record fits.
        proxy = RunningProxy.start(cluster, "single", RunningProxy.lfsOn(s3, BUCKET, Map.of(
                LfsConfig.OFFLOAD_TOPICS, "offload\\..*",
                LfsConfig.OFFLOAD_THRESHOLD_BYTES, String.valueOf(THRESHOLD),
                // The same topics resolved on Fetch: what a plain producer offloaded, a plain consumer reads whole.
                LfsConfig.FETCH_RESOLVE_TOPICS, "offload\\..*",
                // One upload at a time: every test here still gets through, one partition after another.
                LfsConfig.MAX_UPLOADS, "1",
                LfsConfig.MAX_UPLOADS_PER_CLIENT, "1",
                ProxyConfig.GATEWAY_FILE, gateway.toString())));
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
    void aJavaProducersLargeRecordReachesTheBrokerAsAnEnvelopeAndTheRestAsSent() throws Exception {
        // Given
        byte[] large = random(LARGE, 1);
        byte[] small = random(THRESHOLD, 2);
        double offloadedBefore = proxy.metric("kafscale_lfs_proxy_offload_records_total");
        double bytesBefore = proxy.metric("kafscale_lfs_proxy_offload_bytes_total");
        ProducerRecord<byte[], byte[]> big = new ProducerRecord<>(JAVA_TOPIC, 0, bytes("k-large"), large);
        big.headers().add(new RecordHeader("content-type", bytes("application/octet-stream")));
        big.headers().add(new RecordHeader("x-request-id", bytes("java-1")));
        big.headers().add(new RecordHeader("tenant", bytes("blue")));
        // When
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(big).get();
            producer.send(new ProducerRecord<>(JAVA_TOPIC, 0, bytes("k-small"), small)).get();
            producer.send(new ProducerRecord<>(JAVA_TOPIC, 0, bytes("k-gone"), null)).get();
        }
        // Then: the broker holds the envelope, with the record's key and headers
        List<ConsumerRecord<byte[], byte[]>> stored = readFromBroker(JAVA_TOPIC, 3);
        ConsumerRecord<byte[], byte[]> envelope = stored.get(0);
        assertArrayEquals(bytes("k-large"), envelope.key());
        JsonNode json = assertEnvelopeOf(envelope.value(), large);
        assertEquals("application/octet-stream", json.get("content_type").asText());
        assertEquals("java-1", json.get("original_headers").get("x-request-id").asText());
        assertEquals("blue", text(envelope.headers().lastHeader("tenant").value()));
        assertEquals("java-1", text(envelope.headers().lastHeader("x-request-id").value()));
        // records at the threshold and tombstones are as they were sent
        assertArrayEquals(small, stored.get(1).value());
        assertNull(stored.get(2).value());
        assertArrayEquals(bytes("k-gone"), stored.get(2).key());
        assertEquals(offloadedBefore + 1, proxy.metric("kafscale_lfs_proxy_offload_records_total"));
        assertEquals(bytesBefore + LARGE, proxy.metric("kafscale_lfs_proxy_offload_bytes_total"));
        // and a plain consumer through the proxy reads all three as they were sent
        List<ConsumerRecord<byte[], byte[]>> read = readThroughProxy(JAVA_TOPIC, 3);
        assertArrayEquals(large, read.get(0).value());
        assertArrayEquals(bytes("k-large"), read.get(0).key());
        assertEquals("java-1", text(read.get(0).headers().lastHeader("x-request-id").value()));
        assertArrayEquals(small, read.get(1).value());
        assertNull(read.get(2).value());
    }

    @Test
    void aLargeRecordOfAnEncryptedTopicIsCiphertextInS3AndPlaintextThroughTheProxy() throws Exception {
        // Given a topic that is encrypted, offloaded and resolved
        byte[] large = random(LARGE, 4);
        // When a plain producer sends a 10 MiB record through the proxy
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(SEALED, 0, bytes("k-sealed"), large)).get();
        }
        // Then the broker holds an envelope with the encryption header, whose object is not the plaintext
        ConsumerRecord<byte[], byte[]> envelope = readFromBroker(SEALED, 1).get(0);
        assertTrue(envelope.value().length < 2048, "an envelope of " + envelope.value().length + " bytes");
        assertNotNull(envelope.headers().lastHeader("kafscale.enc"));
        String key = JSON.readTree(envelope.value()).get("key").asText();
        byte[] stored = s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
        assertTrue(stored.length > LARGE, "AES-GCM adds its tag: " + stored.length);
        assertNotEquals(sha256(large), sha256(Arrays.copyOf(stored, LARGE)));
        // and a consumer through the proxy reads the plaintext, without the encryption header
        ConsumerRecord<byte[], byte[]> read = readThroughProxy(SEALED, 1).get(0);
        assertArrayEquals(large, read.value());
        assertNull(read.headers().lastHeader("kafscale.enc"));
    }

    @Test
    void aKcatProducersLargeRecordReachesTheBrokerAsAnEnvelope() throws Exception {
        // Given: a 10 MiB file, which kcat sends as one record
        byte[] large = random(LARGE, 3);
        Path dir = Files.createTempDirectory("lfs-offload");
        try {
            Path file = Files.write(dir.resolve("payload.bin"), large);
            // When: librdkafka's message.max.bytes raised, as any producer of such records must
            Kcat.Result result = Kcat.run(Duration.ofSeconds(60), null, List.of("-b", proxy.bootstrap(),
                    "-t", KCAT_TOPIC, "-P", "-p", "0", "-k", "k-kcat", "-H", "x-request-id=kcat-1",
                    "-X", "message.max.bytes=" + PRODUCER_MAX, file.toString()));
            // Then
            assertTrue(result.succeeded(), result.stderr());
        } finally {
            TempDirs.deleteRecursively(dir);
        }
        ConsumerRecord<byte[], byte[]> envelope = readFromBroker(KCAT_TOPIC, 1).get(0);
        assertArrayEquals(bytes("k-kcat"), envelope.key());
        JsonNode json = assertEnvelopeOf(envelope.value(), large);
        assertEquals("kcat-1", json.get("original_headers").get("x-request-id").asText());
        // and read back through the proxy, the record is the 10 MiB kcat sent
        assertArrayEquals(large, readThroughProxy(KCAT_TOPIC, 1).get(0).value());
    }

    @Test
    void partitionsPastTheUploadBoundAreRefusedRetriablyAndLandOnTheRetry() throws Exception {
        // Given: two large records for two partitions, lingering so they share one Produce
        byte[] first = random(LARGE / 4, 5);
        byte[] second = random(LARGE / 4, 6);
        double refusedBefore = refusedUploads();
        Map<String, Object> config = new HashMap<>(producerConfig());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1000);
        // When
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            Future<RecordMetadata> a = producer.send(new ProducerRecord<>(PAIR, 0, null, first));
            Future<RecordMetadata> b = producer.send(new ProducerRecord<>(PAIR, 1, null, second));
            producer.flush();
            a.get();
            b.get();
        }
        // Then: both partitions are taken in one pass on the event loop, before either upload can
        // finish, so with one permit the second is refused once; the producer's retry lands it
        assertTrue(refusedUploads() > refusedBefore, "a partition past the bound is refused");
        assertEnvelopeOf(readFromBroker(PAIR, 0, 1).get(0).value(), first);
        assertEnvelopeOf(readFromBroker(PAIR, 1, 1).get(0).value(), second);
        assertEquals(0, proxy.metric("kafscale_lfs_proxy_uploads_in_flight"), "every permit is given back");
    }

    private static double refusedUploads() {
        String metrics = proxy.healthBody("/metrics");
        return metrics.lines().filter(l -> l.startsWith("kafscale_lfs_proxy_uploads_refused_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void aTopicNotConfiguredKeepsItsLargeRecordsAsSent() throws Exception {
        // Given: over the threshold, under the broker's limit
        byte[] value = random(THRESHOLD * 3, 4);
        // When
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(PLAIN, 0, null, value)).get();
        }
        // Then
        assertArrayEquals(value, readFromBroker(PLAIN, 1).get(0).value());
        assertTrue(s3.client().listObjectsV2(b -> b.bucket(BUCKET).prefix("default/" + PLAIN + "/")).contents()
                .isEmpty());
    }

    /** The envelope's fields, checked against {@code original}, and its object's bytes, by SHA-256. */
    private static JsonNode assertEnvelopeOf(byte[] value, byte[] original) throws Exception {
        assertTrue(value.length < 2048, "an envelope of " + value.length + " bytes");
        assertTrue(text(value).startsWith("{\"kfs_lfs\":1,"), text(value));
        JsonNode envelope = JSON.readTree(value);
        assertEquals(original.length, envelope.get("size").asLong());
        assertEquals(sha256(original), envelope.get("sha256").asText());
        assertEquals(BUCKET, envelope.get("bucket").asText());
        byte[] stored = s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(envelope.get("key").asText()))
                .asByteArray();
        assertEquals(sha256(original), sha256(stored));
        return envelope;
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(producerConfig());
    }

    private static Map<String, Object> producerConfig() {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                ProducerConfig.ACKS_CONFIG, "all",
                // The producer checks its own limit before sending; the broker only ever sees the envelope.
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, PRODUCER_MAX,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    }

    /** The first {@code count} records of partition 0 of {@code topic}, read from the broker itself. */
    private static List<ConsumerRecord<byte[], byte[]>> readFromBroker(String topic, int count) {
        return readFromBroker(topic, 0, count);
    }

    /** The first {@code count} records of partition 0 of {@code topic}, read by a plain consumer through the proxy. */
    private static List<ConsumerRecord<byte[], byte[]>> readThroughProxy(String topic, int count) {
        Properties through = new Properties();
        through.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        return RecordRoundTrip.firstRecords(through, topic, count);
    }

    /** The first {@code count} records of {@code partition} of {@code topic}, read from the broker itself. */
    private static List<ConsumerRecord<byte[], byte[]>> readFromBroker(String topic, int partition, int count) {
        Properties direct = new Properties();
        direct.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        return RecordRoundTrip.firstRecords(direct, new TopicPartition(topic, partition), count);
    }

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
