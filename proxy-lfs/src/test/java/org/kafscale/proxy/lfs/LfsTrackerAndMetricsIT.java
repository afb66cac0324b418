package org.kafscale.proxy.lfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.http.TlsSettings;
import org.kafscale.proxy.lfs.tracker.TrackerSettings;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The ops tracker writes the original's events to {@code __lfs_ops_state} (created at start-up)
 * through the proxy's own topology, and the {@code kafscale_lfs_proxy_*} series count what happened.
 */
class LfsTrackerAndMetricsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void uploadsAndDownloadsAreTrackedAndCounted() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.start(1); S3Server s3 = S3Server.start();
             LfsTestBed lfs = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.tracker(s,
                     new TrackerSettings(true, TrackerSettings.DEFAULT_TOPIC, 10, Duration.ofMillis(50), true, 3,
                             (short) 1)))) {
            // Given
            cluster.createTopic("tracked", 1);
            byte[] payload = "tracked payload".getBytes(StandardCharsets.UTF_8);
            // When
            HttpResponse<String> produced = lfs.send(lfs.produce("tracked", payload)
                    .header("X-Request-ID", "req-upload").build());
            Envelope envelope = EnvelopeCodec.decode(produced.body().trim().getBytes(StandardCharsets.UTF_8));
            assertEquals(200, lfs.sendForBytes(lfs.download(envelope.key(), envelope.sha256(), envelope.size()))
                    .statusCode());
            lfs.send(lfs.produce("tracked", new byte[1]).header("X-LFS-Checksum", "ff".repeat(32)).build());
            // Then: the events, as JSON records keyed by topic
            List<JsonNode> events = new ArrayList<>();
            Eventually.await(Duration.ofSeconds(30), "the tracker events", () -> {
                events.clear();
                events.addAll(trackerEvents(cluster, 5));
                Set<String> types = events.stream().map(e -> e.get("event_type").asText()).collect(Collectors.toSet());
                assertTrue(types.containsAll(Set.of("upload_started", "upload_completed", "download_requested",
                        "download_completed", "upload_failed")), types.toString());
            });
            JsonNode completed = events.stream().filter(e -> e.get("event_type").asText().equals("upload_completed"))
                    .findFirst().orElseThrow();
            assertEquals("req-upload", completed.get("request_id").asText());
            assertEquals(envelope.sha256(), completed.get("sha256").asText());
            assertEquals("lfs-test-proxy", completed.get("proxy_id").asText());
            assertEquals(1, completed.get("version").asInt());
            // And the metrics
            assertEquals(1.0, lfs.registry().get("kafscale_lfs_proxy_requests").tags("topic", "tracked", "status", "ok",
                    "type", "lfs").counter().count());
            assertEquals(1.0, lfs.registry().get("kafscale_lfs_proxy_requests").tags("topic", "tracked", "status",
                    "error", "type", "lfs").counter().count());
            assertEquals(payload.length, lfs.registry().get("kafscale_lfs_proxy_upload_bytes").counter().count());
            assertEquals(1, lfs.registry().get("kafscale_lfs_proxy_upload_duration").timer().count());
            assertTrue(lfs.registry().get("kafscale_lfs_proxy_goroutines").gauge().value() > 0);
            assertEquals(0.0, lfs.registry().get("kafscale_lfs_proxy_orphan_objects").counter().count());
        }
    }

    /**
     * With mTLS on the LFS listener, the events of an upload name the client certificate's
     * principal; an upload without a certificate (optional here) has no principal field.
     */
    @Test
    void uploadEventsNameTheClientCertificatesPrincipalAndLeaveItOutWithoutOne() throws Exception {
        Path dir = Files.createTempDirectory("lfs-tracker-tls");
        TestCertificates ca = TestCertificates.create(dir, "lfs-tracker");
        TestCertificates.Identity server = ca.server();
        TestCertificates.Identity uploader = ca.client("uploader");
        try (KafkaCluster cluster = KafkaCluster.start(1); S3Server s3 = S3Server.start();
             LfsTestBed lfs = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.tls(
                     SettingsEdits.tracker(s, new TrackerSettings(true, TrackerSettings.DEFAULT_TOPIC, 10,
                             Duration.ofMillis(50), true, 3, (short) 1)),
                     new TlsSettings(server.chainFile(), server.keyFile(), Optional.of(ca.caFile()), false)))) {
            // Given
            cluster.createTopic("tracked-tls", 1);
            URI produce = URI.create("https://127.0.0.1:" + lfs.module().httpAddress().getPort() + "/lfs/produce");
            // When: one upload with the client certificate, one without
            for (TestCertificates.Identity client : Arrays.asList(uploader, null)) {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .sslContext(ca.clientContext(client)).build();
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(produce)
                        .header("X-Kafka-Topic", "tracked-tls")
                        .header("X-Request-ID", client == null ? "req-anonymous" : "req-mtls")
                        .POST(HttpRequest.BodyPublishers.ofString("payload")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, answer.statusCode(), answer.body());
            }
            // Then
            List<JsonNode> events = new ArrayList<>();
            Eventually.await(Duration.ofSeconds(30), "both uploads' events", () -> {
                events.clear();
                events.addAll(trackerEvents(cluster, 4));
                assertEquals(2, events.stream().filter(e -> e.get("event_type").asText().equals("upload_completed"))
                        .count(), events.toString());
            });
            for (JsonNode event : events) {
                if (event.get("request_id").asText().equals("req-mtls")) {
                    assertEquals("User:CN=uploader", event.path("principal").asText(), event.toString());
                } else {
                    assertFalse(event.has("principal"), event.toString());
                }
            }
        } finally {
            TempDirs.deleteRecursively(dir);
        }
    }

    /** The tracker topic's events, once at least {@code expected} are there. */
    private static List<JsonNode> trackerEvents(KafkaCluster cluster, int expected) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : EnvelopeConsumer.read(cluster.bootstrapServers(),
                TrackerSettings.DEFAULT_TOPIC, 3, expected)) {
            events.add(JSON.readTree(r.value()));
        }
        return events;
    }
}
