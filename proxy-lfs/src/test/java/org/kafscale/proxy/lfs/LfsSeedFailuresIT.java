package org.kafscale.proxy.lfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.discovery.etcd.EtcdTopology;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.FaultyRelay;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;
import org.kafscale.proxy.testkit.S3Server;

/**
 * Every failure point of the seed report (PR #319) against real parts (Kafka, KafScale's etcd,
 * S3Proxy): the status the client gets, and that afterwards the bucket holds no object without a
 * record, except counted orphans.
 */
class LfsSeedFailuresIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TTL = Duration.ofSeconds(3);
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** More than the socket buffers and the proxy hold, so the S3 PUT is sending when the body pauses. */
    private static final long FIRST_PART = 6L * 1024 * 1024;
    private static final long BODY = 8L * 1024 * 1024;

    private static KafkaCluster cluster;
    private static EtcdProcess etcd;
    private static KafscaleEtcdWriter kafscale;
    private static S3Server s3;
    private static EtcdTopology topology;
    private static LfsTestBed lfs;
    private static final List<String> topics = new ArrayList<>();

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(3);
        etcd = EtcdProcess.startNew();
        kafscale = KafscaleEtcdWriter.connect(etcd.endpoint());
        s3 = S3Server.start();
        topology = new EtcdTopology(Client.builder().endpoints(etcd.endpoint()).build(), null, List.of(), TTL,
                Duration.ofMillis(300), Duration.ofSeconds(2), new SimpleMeterRegistry());
        kafscale.publishSnapshot(cluster, List.of());
        topology.start().join();
        lfs = LfsTestBed.onTopology(topology, s3, UnaryOperator.identity());
    }

    @AfterAll
    static void stop() {
        lfs.close();
        topology.close();
        kafscale.close();
        s3.close();
        etcd.close();
        cluster.close();
    }

    /** A topic whose partition 0 is led by {@code leader} (replicas as given), published to etcd with its lease. */
    private static String topic(String name, List<Integer> replicas) {
        cluster.admin().createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(name,
                Map.of(0, replicas)))).all().toCompletionStage().toCompletableFuture().join();
        Eventually.await(DEADLINE, name + " to have its leader", () -> cluster.leaders(name).get(0) == replicas.get(0));
        topics.add(name);
        kafscale.publishSnapshot(cluster, topics);
        kafscale.publishPartitionLeases(cluster, List.of(name));
        Eventually.await(DEADLINE, "the proxy to see " + name, () -> topology.snapshot().owner(name, 0).isPresent()
                && topology.snapshot().owner(name, 0).getAsInt() == replicas.get(0));
        return name;
    }

    private static List<String> objectsOf(String topic) {
        return lfs.objectKeys().stream().filter(k -> k.startsWith(LfsTestBed.NAMESPACE + "/" + topic + "/")).toList();
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    /** 503 with {@code code}, and no object of {@code topic} left in the bucket. */
    private static void assertRefusedWithNothingLeft(HttpResponse<String> response, String code, String topic)
            throws Exception {
        assertEquals(503, response.statusCode(), response.body());
        assertEquals(code, json(response).get("code").asText());
        assertEquals(List.of(), objectsOf(topic));
    }

    @Test
    void snapshotWithoutBrokersAnswers503AndNeverTouchesS3() throws Exception {
        // Given: etcd lists no broker at all
        String topic = topic("no-brokers", List.of(0));
        String empty = KafscaleEtcdWriter.snapshotJson(cluster, topics)
                .replaceFirst("\"Brokers\":\\[.*?\\],\"ControllerID\"", "\"Brokers\":[],\"ControllerID\"");
        kafscale.publishSnapshotJson(empty);
        try {
            Eventually.await(DEADLINE, "the proxy to see no broker", () -> !topology.snapshot().hasBrokers());
            // When
            HttpResponse<String> response = lfs.send(lfs.produce(topic, new byte[1024]).build());
            // Then
            assertRefusedWithNothingLeft(response, "backend_unavailable", topic);
            assertEquals(0, lfs.openMultipartUploads());
        } finally {
            kafscale.publishSnapshot(cluster, topics);
            Eventually.await(DEADLINE, "brokers back", () -> topology.snapshot().hasBrokers());
        }
    }

    @Test
    void listedButUnreachableBrokerAnswers503AndNeverTouchesS3() throws Exception {
        // Given: etcd lists broker 1 at an address where nothing listens
        String topic = topic("unreachable", List.of(1));
        int deadPort = LfsTestBed.deadPort();
        kafscale.publishSnapshot(cluster, topics, Map.of(1, "127.0.0.1:" + deadPort));
        try {
            Eventually.await(DEADLINE, "the proxy to see the dead address",
                    () -> topology.snapshot().broker(1).orElseThrow().port() == deadPort);
            // When
            HttpResponse<String> response = lfs.send(lfs.produce(topic, new byte[1024]).build());
            // Then
            assertRefusedWithNothingLeft(response, "backend_unavailable", topic);
        } finally {
            kafscale.publishSnapshot(cluster, topics);
        }
    }

    @Test
    void brokersGoneAfterTheUploadDeleteTheObjectAndAnswer503() throws Exception {
        // Given: an upload under way to the owner, broker 2
        String topic = topic("brokers-gone", List.of(2));
        GatedBody body = new GatedBody(FIRST_PART, BODY);
        CompletableFuture<HttpResponse<String>> response = lfs.startPausedProduce(lfs.produce(topic, new byte[0]), body);
        // When: every broker vanishes from etcd before the body ends
        int deadPort = LfsTestBed.deadPort();
        String dead = "127.0.0.1:" + deadPort;
        kafscale.publishSnapshot(cluster, topics, Map.of(0, dead, 1, dead, 2, dead));
        Eventually.await(DEADLINE, "the proxy to see the dead addresses",
                () -> topology.snapshot().broker(2).orElseThrow().port() == deadPort);
        body.release();
        // Then
        HttpResponse<String> answer = response.join();
        try {
            assertRefusedWithNothingLeft(answer, "backend_unavailable", topic);
            assertEquals(0, lfs.openMultipartUploads());
        } finally {
            kafscale.publishSnapshot(cluster, topics);
        }
    }

    @Test
    void ttlExpiredDuringTheUploadDeletesTheObjectAndAnswers503() throws Exception {
        // Given
        String topic = topic("ttl-expired", List.of(0));
        GatedBody body = new GatedBody(FIRST_PART, BODY);
        CompletableFuture<HttpResponse<String>> response = lfs.startPausedProduce(lfs.produce(topic, new byte[0]), body);
        // When: etcd goes away for longer than the TTL
        etcd.stop();
        try {
            Eventually.await(DEADLINE, "the TTL gate to close", () -> !topology.routable());
            body.release();
            // Then
            HttpResponse<String> answer = response.join();
            assertRefusedWithNothingLeft(answer, "backend_unavailable", topic);
        } finally {
            etcd.start();
            Eventually.await(DEADLINE, "etcd to be read again", () -> topology.routable());
        }
    }

    @Test
    void etcdUnreadableWithinTheTtlDeletesTheObjectAndAnswersMetadataUnavailable() throws Exception {
        // Given: a proxy whose TTL outlasts the outage, with an upload under way
        String topic = topic("etcd-blip", List.of(0));
        try (EtcdTopology patient = new EtcdTopology(Client.builder().endpoints(etcd.endpoint()).build(), null, List.of(),
                Duration.ofMinutes(5), Duration.ofMillis(300), Duration.ofSeconds(2), new SimpleMeterRegistry());
             LfsTestBed blip = startOn(patient)) {
            GatedBody body = new GatedBody(FIRST_PART, BODY);
            CompletableFuture<HttpResponse<String>> response = blip.startPausedProduce(
                    blip.produce(topic, new byte[0]), body);
            // When: etcd cannot be read, though the TTL has not passed
            etcd.stop();
            try {
                body.release();
                // Then
                HttpResponse<String> answer = response.join();
                assertRefusedWithNothingLeft(answer, "metadata_unavailable", topic);
                assertTrue(patient.routable(), "still within the TTL");
            } finally {
                etcd.start();
                Eventually.await(DEADLINE, "etcd to be read again", () -> topology.routable());
            }
        }
    }

    private static LfsTestBed startOn(EtcdTopology source) {
        source.start().join();
        return LfsTestBed.onTopology(source, s3, UnaryOperator.identity());
    }

    @Test
    void ownerMovedDuringTheUploadGetsTheRecordOnTheNewOwner() throws Exception {
        // Given: partition 0 led by broker 1 with a follower on broker 2; the upload connected to broker 1
        String topic = topic("owner-moves", List.of(1, 2));
        GatedBody body = new GatedBody(FIRST_PART, BODY);
        CompletableFuture<HttpResponse<String>> response = lfs.startPausedProduce(lfs.produce(topic, new byte[0]), body);
        // When: broker 1 stops, broker 2 takes the partition and etcd says so
        cluster.stopBroker(1);
        try {
            Eventually.await(DEADLINE, "broker 2 to lead", () -> cluster.leaders(topic).get(0) == 2);
            kafscale.putPartitionLease(topic, 0, 2);
            Eventually.await(DEADLINE, "the proxy to see the move",
                    () -> topology.snapshot().owner(topic, 0).orElse(-1) == 2);
            body.release();
            // Then
            HttpResponse<String> answer = response.join();
            assertEquals(200, answer.statusCode(), answer.body());
            String key = EnvelopeCodec.decode(answer.body().trim().getBytes(StandardCharsets.UTF_8)).key();
            assertEquals(List.of(key), objectsOf(topic));
            assertTrue(EnvelopeConsumer.read(cluster.bootstrapServers(), topic, 1, 1).stream()
                    .anyMatch(r -> EnvelopeCodec.decode(r.value()).key().equals(key)));
        } finally {
            cluster.restartBroker(1);
        }
    }

    @Test
    void noBrokerLeadingThePartitionDeletesTheObjectAndAnswers503() throws Exception {
        // Given: etcd names broker 0 as owner, but Kafka's leader is broker 2: every try answers NOT_LEADER_OR_FOLLOWER
        String topic = topic("no-leader", List.of(2));
        kafscale.putPartitionLease(topic, 0, 0);
        Eventually.await(DEADLINE, "the stale route", () -> topology.snapshot().owner(topic, 0).orElse(-1) == 0);
        // When
        HttpResponse<String> response = lfs.send(lfs.produce(topic, new byte[4096]).build());
        // Then
        assertRefusedWithNothingLeft(response, "backend_unavailable", topic);
    }

    @Test
    void producedButRefusedKeepsTheObjectAsACountedOrphan() throws Exception {
        // Given: the broker refuses every record of this topic (max.message.bytes below an envelope's size)
        String topic = topic("refused", List.of(0));
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        cluster.admin().incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                new ConfigEntry("max.message.bytes", "64"), AlterConfigOp.OpType.SET)))).all().get();
        double orphansBefore = lfs.orphans();
        // When
        HttpResponse<String> response = lfs.send(lfs.produce(topic, new byte[4096]).build());
        // Then: the produce was sent and failed, so the object may have a record: kept and counted
        assertEquals(502, response.statusCode(), response.body());
        assertEquals("backend_error", json(response).get("code").asText());
        assertEquals(1, objectsOf(topic).size());
        assertEquals(orphansBefore + 1, lfs.orphans());
    }

    @Test
    void producesShareOneConnectionToTheOwner() throws Exception {
        // Given: etcd lists broker 0 behind a relay that counts connections
        String topic = topic("one-connection", List.of(0));
        try (FaultyRelay relay = FaultyRelay.start(cluster.brokerAddress(0))) {
            kafscale.publishSnapshot(cluster, topics, Map.of(0, "127.0.0.1:" + relay.port()));
            Eventually.await(DEADLINE, "the proxy to see the relay",
                    () -> topology.snapshot().broker(0).orElseThrow().port() == relay.port());
            // When
            for (int i = 0; i < 3; i++) {
                assertEquals(200, lfs.send(lfs.produce(topic, new byte[] {(byte) i}).build()).statusCode());
            }
            // Then: the connect before each upload and each produce used the same connection
            assertEquals(1, relay.connectionsAccepted());
        } finally {
            kafscale.publishSnapshot(cluster, topics);
        }
    }

    @Test
    void checksumMismatchDeletesTheObject() throws Exception {
        String topic = topic("checksum", List.of(0));

        HttpResponse<String> response = lfs.send(lfs.produce(topic, new byte[100])
                .header("X-LFS-Checksum", "00".repeat(32)).build());

        assertEquals(400, response.statusCode(), response.body());
        assertEquals("checksum_mismatch", json(response).get("code").asText());
        assertTrue(json(response).get("message").asText().startsWith("checksum mismatch: expected 0000"));
        assertEquals(List.of(), objectsOf(topic));
    }

}
