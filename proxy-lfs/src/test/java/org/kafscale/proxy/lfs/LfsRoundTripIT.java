package org.kafscale.proxy.lfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.s3.StreamedPut;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The whole path with real parts: a payload posted to /lfs/produce lands in S3, its envelope in
 * Kafka (read back with a plain consumer), and /lfs/download returns the same bytes.
 */
class LfsRoundTripIT {
    private static final int PARTITIONS = 3;
    private static KafkaCluster cluster;
    private static S3Server s3;
    private static LfsTestBed lfs;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(3);
        s3 = S3Server.start();
        lfs = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, UnaryOperator.identity());
    }

    @AfterAll
    static void stop() {
        lfs.close();
        s3.close();
        cluster.close();
    }

    /** With a Content-Length up to {@link StreamedPut#MAX_BYTES}: stored with one streamed PUT. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 4 * 1024 * 1024, 64 * 1024 * 1024})
    void payloadRoundTripsThroughS3AndKafka(int size) throws Exception {
        Envelope envelope = roundTrip(size, true);
        assertFalse(etag(envelope).contains("-"), "a single PUT's ETag: " + etag(envelope));
    }

    /** Without a Content-Length (chunked), the length is unknown up front: stored as a multipart upload. */
    @ParameterizedTest(name = "{0} bytes, chunked")
    @ValueSource(ints = {1, 12 * 1024 * 1024})
    void chunkedPayloadRoundTripsAsMultipartUpload(int size) throws Exception {
        Envelope envelope = roundTrip(size, false);
        // S3 gives an object assembled from parts the ETag "<md5 of the parts' md5s>-<parts>".
        assertEquals(size > 5 * 1024 * 1024, etag(envelope).endsWith("-3\""), "ETag " + etag(envelope));
    }

    private Envelope roundTrip(int size, boolean declareLength) throws Exception {
        // Given
        String topic = "round-trip-" + size + (declareLength ? "" : "-chunked");
        cluster.createTopic(topic, PARTITIONS);
        byte[] payload = new byte[size];
        new Random(size).nextBytes(payload);
        String sha = sha256(payload);
        long before = System.currentTimeMillis();
        HttpRequest.Builder request = lfs.produce(topic, payload);
        if (!declareLength) {
            request.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(payload)));
        }

        // When
        HttpResponse<String> produced = lfs.send(request.header("X-Kafka-Partition", "1")
                .header("Content-Type", "application/x-test").header("X-LFS-Checksum", sha).build());

        // Then
        assertEquals(200, produced.statusCode(), produced.body());
        Envelope answered = EnvelopeCodec.decode(produced.body().trim().getBytes(StandardCharsets.UTF_8));
        assertEquals(size, answered.size());
        assertEquals(sha, answered.sha256());
        assertEquals("application/x-test", answered.contentType());
        List<ConsumerRecord<byte[], byte[]>> records = EnvelopeConsumer.read(cluster.bootstrapServers(), topic,
                PARTITIONS, 1);
        ConsumerRecord<byte[], byte[]> record = records.get(0);
        assertEquals(1, record.partition());
        assertTrue(EnvelopeCodec.looksLikeEnvelope(record.value()));
        assertEquals(produced.body().trim(), new String(record.value(), StandardCharsets.UTF_8));
        assertEquals(TimestampType.CREATE_TIME, record.timestampType());
        assertTrue(record.timestamp() >= before, "record timestamp is the produce time");

        HttpResponse<byte[]> downloaded = lfs.sendForBytes(lfs.download(answered.key(), sha, size));
        assertEquals(200, downloaded.statusCode());
        assertArrayEquals(payload, downloaded.body());
        assertEquals("sha256=" + sha, downloaded.headers().firstValue("X-Kafscale-LFS-Checksum").orElse(""));
        assertEquals(0, lfs.openMultipartUploads());
        return answered;
    }

    private static String etag(Envelope envelope) {
        return s3.client().headObject(b -> b.bucket(envelope.bucket()).key(envelope.key())).eTag();
    }

    @Test
    void keyWithoutPartitionUsesKafkasDefaultPartitioner() {
        // Given
        String topic = "keyed";
        cluster.createTopic(topic, PARTITIONS);
        byte[] key = "order-42".getBytes(StandardCharsets.UTF_8);

        // When
        HttpResponse<String> produced = lfs.send(lfs.produce(topic, new byte[] {7})
                .header("X-Kafka-Key", Base64.getEncoder().encodeToString(key)).build());

        // Then
        assertEquals(200, produced.statusCode(), produced.body());
        ConsumerRecord<byte[], byte[]> record = EnvelopeConsumer.read(cluster.bootstrapServers(), topic, PARTITIONS, 1)
                .get(0);
        assertArrayEquals(key, record.key());
        assertEquals(Utils.toPositive(Utils.murmur2(key)) % PARTITIONS, record.partition());
    }

    @Test
    void noKeyAndNoPartitionGoesToPartitionZero() {
        String topic = "unkeyed";
        cluster.createTopic(topic, PARTITIONS);

        HttpResponse<String> produced = lfs.send(lfs.produce(topic, new byte[] {1, 2, 3}).build());

        assertEquals(200, produced.statusCode(), produced.body());
        assertEquals(0, EnvelopeConsumer.read(cluster.bootstrapServers(), topic, PARTITIONS, 1).get(0).partition());
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    static HttpRequest.BodyPublisher body(byte[] bytes) {
        return HttpRequest.BodyPublishers.ofByteArray(bytes);
    }
}
