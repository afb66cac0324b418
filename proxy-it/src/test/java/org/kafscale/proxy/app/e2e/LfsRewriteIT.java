package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The Kafka-side LFS rewrite through the application: a plain kafka-clients producer marks records
 * with {@code LFS_BLOB}; on an enabled topic a plain consumer reads envelopes whose objects hold
 * the original bytes, on any other topic the records pass untouched, and a wrong checksum fails
 * the partition and leaves no object.
 */
class LfsRewriteIT {
    private static final String BUCKET = "proxy-lfs";
    private static final String MEDIA = "media";
    private static final String AUDIT = "audit";
    private static final String PLAIN = "plain";
    private static final String TINY = "tiny";
    private static final String FIRE = "fire-and-forget";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static KafkaCluster cluster;
    private static S3Server s3;
    private static RunningProxy proxy;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        s3 = S3Server.start();
        cluster.createTopic(MEDIA, 1);
        cluster.createTopic(AUDIT, 1);
        cluster.createTopic(PLAIN, 1);
        cluster.createTopic(FIRE, 1);
        try {
            // The broker refuses any batch over 64 bytes, so an envelope never lands there.
            cluster.admin().createTopics(List.of(new NewTopic(TINY, 1, (short) 1)
                    .configs(Map.of("max.message.bytes", "64")))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        s3.createBucket(BUCKET);
        proxy = RunningProxy.start(cluster, "single", RunningProxy.lfsOn(s3, BUCKET,
                Map.of(LfsConfig.REWRITE_TOPICS, MEDIA + ", " + AUDIT + "," + TINY + "," + FIRE)));
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
    void markedRecordsInACompressedIdempotentBatchBecomeEnvelopes() throws Exception {
        byte[] big = "a large payload, in spirit".repeat(100).getBytes(StandardCharsets.UTF_8);
        byte[] other = "another payload".getBytes(StandardCharsets.UTF_8);
        List<ProducerRecord<byte[], byte[]>> sent = List.of(
                record(MEDIA, "plain-0"),
                marked(MEDIA, big, sha256(big)),
                marked(MEDIA, other, ""),
                record(MEDIA, "plain-3"));
        try (KafkaProducer<byte[], byte[]> producer = producer("zstd")) {
            // Two rounds: the second batch's sequence follows the first's, as the broker checks.
            sendAll(producer, sent);
            sendAll(producer, sent);
        }

        List<ConsumerRecord<byte[], byte[]>> read = consume(MEDIA, 8);
        for (int round = 0; round < 2; round++) {
            int base = round * 4;
            assertEquals("plain-0", text(read.get(base).value()));
            assertEquals("plain-3", text(read.get(base + 3).value()));
            assertEnvelope(read.get(base + 1), big);
            assertEnvelope(read.get(base + 2), other);
        }
    }

    @Test
    void acksZeroSendsTheRewrittenBatch() throws Exception {
        byte[] value = "sent and forgotten".getBytes(StandardCharsets.UTF_8);
        Map<String, Object> config = new HashMap<>(producerConfig("gzip"));
        config.put(ProducerConfig.ACKS_CONFIG, "0");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            sendAll(producer, List.of(marked(FIRE, value, "")));
            // Open until the record is there: the proxy writes it once the upload is done.
            assertEnvelope(consume(FIRE, 1).get(0), value);
        }
    }

    @Test
    void topicsNotEnabledPassMarkedRecordsUntouched() throws Exception {
        byte[] value = "stays as it is".getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> producer = producer("lz4")) {
            sendAll(producer, List.of(marked(PLAIN, value, "")));
        }
        ConsumerRecord<byte[], byte[]> read = consume(PLAIN, 1).get(0);
        assertArrayEquals(value, read.value());
        assertEquals("", text(read.headers().lastHeader("LFS_BLOB").value()));
    }

    @Test
    void aWrongChecksumFailsThePartitionAndLeavesNoObject() throws Exception {
        byte[] value = "checked payload".getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> producer = producer("lz4")) {
            Future<RecordMetadata> result = producer.send(marked(AUDIT, value, sha256("something else".getBytes(
                    StandardCharsets.UTF_8))));
            ExecutionException failure = assertThrows(ExecutionException.class, result::get);
            assertInstanceOf(InvalidRecordException.class, failure.getCause());
        }
        assertTrue(s3.client().listObjectsV2(b -> b.bucket(BUCKET).prefix("default/" + AUDIT + "/")).contents()
                .isEmpty());
    }

    @Test
    void objectsOfAPartitionTheBrokerRefusedAreCountedAsOrphans() throws Exception {
        double before = orphans();
        byte[] value = "refused by the broker".getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> producer = producer("none")) {
            Future<RecordMetadata> result = producer.send(marked(TINY, value, ""));
            assertThrows(ExecutionException.class, result::get);
        }
        assertEquals(before + 1, orphans());
        assertEquals(1, s3.client().listObjectsV2(b -> b.bucket(BUCKET).prefix("default/" + TINY + "/")).contents()
                .size());
    }

    private static double orphans() {
        return proxy.metric("kafscale_lfs_proxy_orphan_objects_total");
    }

    private static void assertEnvelope(ConsumerRecord<byte[], byte[]> record, byte[] original) throws Exception {
        JsonNode envelope = JSON.readTree(record.value());
        assertTrue(text(record.value()).startsWith("{\"kfs_lfs\":1,"), text(record.value()));
        assertEquals(original.length, envelope.get("size").asLong());
        assertEquals(sha256(original), envelope.get("sha256").asText());
        assertEquals("text/plain", envelope.get("content_type").asText());
        assertEquals("trace-1", envelope.get("original_headers").get("x-request-id").asText());
        assertNull(record.headers().lastHeader("LFS_BLOB"));
        assertEquals("trace-1", text(record.headers().lastHeader("x-request-id").value()));
        assertEquals("kept", text(record.headers().lastHeader("other").value()));
        byte[] stored = s3.client().getObjectAsBytes(b -> b.bucket(envelope.get("bucket").asText())
                .key(envelope.get("key").asText())).asByteArray();
        assertArrayEquals(original, stored);
        assertFalse(envelope.get("key").asText().isEmpty());
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
        return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static ProducerRecord<byte[], byte[]> marked(String topic, byte[] value, String checksum) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0, "k".getBytes(StandardCharsets.UTF_8),
                value);
        record.headers().add(new RecordHeader("content-type", "text/plain".getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("LFS_BLOB", checksum.getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("x-request-id", "trace-1".getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("other", "kept".getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /** Sends the records so they share one batch, then waits for every answer. */
    private static void sendAll(KafkaProducer<byte[], byte[]> producer, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        List<Future<RecordMetadata>> results = new ArrayList<>();
        records.forEach(r -> results.add(producer.send(r)));
        producer.flush();
        for (Future<RecordMetadata> result : results) {
            result.get();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String compression) {
        return new KafkaProducer<>(producerConfig(compression));
    }

    private static Map<String, Object> producerConfig(String compression) {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
                ProducerConfig.LINGER_MS_CONFIG, 200,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    }

    private static List<ConsumerRecord<byte[], byte[]>> consume(String topic, int count) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            Eventually.await(Duration.ofSeconds(30), count + " records of " + topic, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(found::add);
                return found.size() >= count;
            });
            return found;
        }
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
