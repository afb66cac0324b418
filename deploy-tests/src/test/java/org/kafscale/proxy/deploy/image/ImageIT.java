package org.kafscale.proxy.deploy.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The image itself, built by scripts/image.sh on the Debian base and run by podman as a cluster
 * runs it ({@link ProxyContainer}: uid 10001, read-only root, tmpfs /tmp, environment only, host
 * network), in front of a real broker, etcd (the topology comes from KafScale's keys) and S3
 * (S3Proxy in this JVM). Skips, saying why, where podman and its tools cannot be installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ImageIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String TOPIC = "image-records";
    private static final String LFS_TOPIC = "image-lfs";
    private static final String BUCKET = "image-lfs";
    private static final String API_KEY = "image-key";
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);
    /** podman stop's wait before SIGKILL: well above the drain, so only a hung drain reaches it. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(1);

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private BuiltImage image;
    private S3Server s3;
    /** The container the traffic tests share (a start costs seconds); the SIGTERM test stops one of its own. */
    private Proxy shared;

    @BeforeAll
    void buildImageAndPublishTopology() {
        // A tag of this run's own: another build on the machine (another clone's test) cannot re-tag it meanwhile.
        image = BuiltImage.build("localhost/kafscale-proxy-jvm:it-" + UUID.randomUUID().toString().substring(0, 8));
        assertTrue(image.sizeBytes() > 0, image.toString());
        s3 = S3Server.start();
        s3.createBucket(BUCKET);
        BACKENDS.cluster().createTopic(TOPIC, 1);
        BACKENDS.cluster().createTopic(LFS_TOPIC, 1);
        BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of(TOPIC, LFS_TOPIC));
        BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), List.of(TOPIC, LFS_TOPIC));
        shared = startProxy();
    }

    @AfterAll
    void stopContainerAndS3() {
        if (shared != null) {
            shared.close();
        }
        if (image != null) {
            image.remove();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void kcatRoundTripsThroughTheContainerWhichProvesItsReadPathAndPassesItsHealthcheck() {
        // When
        Kcat.Result produced = Kcat.produce(shared.bootstrap(), TOPIC, List.of("k1:through the image", "k2:as a cluster runs it"));

        // Then
        assertEquals(0, produced.exitCode(), produced.stderr());
        Kcat.Result consumed = Kcat.consume(shared.bootstrap(), TOPIC, 2);
        assertEquals(List.of("through the image", "as a cluster runs it"), consumed.lines(), consumed.stderr());
        Eventually.await(DEADLINE, "/readyz 200 with the read path proven through the container",
                () -> shared.health("/readyz").statusCode() == 200
                        && shared.health("/readyz").body().contains("read path proven: fetched"));
        Podman.Result healthcheck = shared.container().healthcheck();
        assertEquals(0, healthcheck.exitCode(), healthcheck.stdout() + healthcheck.stderr());
    }

    @Test
    void lfsUploadAndDownloadThroughTheContainer() throws Exception {
        byte[] payload = "a large payload, through the image".getBytes(StandardCharsets.UTF_8);

        // When
        HttpResponse<String> uploaded = HTTP.send(HttpRequest.newBuilder(shared.lfs("/lfs/produce"))
                        .header("X-Kafka-Topic", LFS_TOPIC).header("X-API-Key", API_KEY)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(),
                HttpResponse.BodyHandlers.ofString());

        // Then: the envelope is in Kafka, read through the container, and the payload comes back from S3
        assertEquals(200, uploaded.statusCode(), uploaded.body());
        Kcat.Result envelope = Kcat.consume(shared.bootstrap(), LFS_TOPIC, 1);
        assertEquals(List.of(uploaded.body().strip()), envelope.lines(), envelope.stderr());
        JsonNode uploadedEnvelope = new ObjectMapper().readTree(uploaded.body());
        HttpResponse<byte[]> downloaded = HTTP.send(HttpRequest.newBuilder(shared.lfs("/lfs/download"))
                        .header("X-API-Key", API_KEY)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"bucket\":\"" + BUCKET + "\",\"key\":\""
                                + uploadedEnvelope.get("key").asText() + "\",\"integrity\":{\"sha256\":\""
                                + uploadedEnvelope.get("sha256").asText() + "\",\"size\":" + payload.length + "}}"))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, downloaded.statusCode());
        assertArrayEquals(payload, downloaded.body());
    }

    @Test
    void sigtermDrainsAndTheProcessExitsZero() {
        try (Proxy proxy = startProxy()) {
            // When: podman stop sends SIGTERM, and SIGKILL only after STOP_TIMEOUT
            long signalled = System.nanoTime();
            int exitCode = proxy.container().stop(STOP_TIMEOUT);
            Duration stopped = Duration.ofNanos(System.nanoTime() - signalled);

            // Then: a clean exit (SIGKILL would be 137, the JVM's own SIGTERM handling 143), after a drain
            String logs = proxy.container().logs();
            System.out.printf("podman stop took %d ms%n%s%n", stopped.toMillis(), logs);
            assertEquals(0, exitCode, logs);
            assertTrue(stopped.compareTo(STOP_TIMEOUT) < 0, "stopped after " + stopped);
            assertTrue(logs.contains("Draining: not ready, no new connections, up to " + DRAIN_TIMEOUT.toMillis() + " ms"),
                    logs);
        }
    }

    /** A container of the image, ready (/readyz 200), and the addresses it serves on. */
    private record Proxy(ProxyContainer container, int kafkaPort, int healthPort, int lfsPort) implements AutoCloseable {
        String bootstrap() {
            return "127.0.0.1:" + kafkaPort;
        }

        URI lfs(String path) {
            return URI.create("http://127.0.0.1:" + lfsPort + path);
        }

        HttpResponse<String> health(String path) {
            try {
                return HTTP.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + healthPort + path)).build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new AssertionError("GET " + path + " failed: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            container.close();
        }
    }

    private Proxy startProxy() {
        int kafkaPort = FreePorts.next();
        int healthPort = FreePorts.next();
        int lfsPort = FreePorts.next();
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.ADDR, "127.0.0.1:" + kafkaPort);
        env.put(ProxyConfig.ADVERTISED_HOST, "127.0.0.1");
        env.put(ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + healthPort);
        env.put(ProxyConfig.BACKENDS, "");
        env.put(ProxyConfig.ETCD_ENDPOINTS, BACKENDS.etcd().endpoint());
        env.put(ProxyConfig.READY_PROBE_INTERVAL_MS, "300");
        env.put(ProxyConfig.DRAIN_TIMEOUT_MS, Long.toString(DRAIN_TIMEOUT.toMillis()));
        env.put(LfsConfig.LFS_ENABLED, "true");
        env.put(LfsConfig.HTTP_ADDR, "127.0.0.1:" + lfsPort);
        env.put(LfsConfig.HTTP_API_KEY, API_KEY);
        env.put(LfsConfig.S3_BUCKET, BUCKET);
        env.put(LfsConfig.S3_REGION, "us-east-1");
        env.put(LfsConfig.S3_ENDPOINT, s3.endpoint().toString());
        env.put(LfsConfig.S3_ACCESS_KEY, s3.accessKey());
        env.put(LfsConfig.S3_SECRET_KEY, s3.secretKey());
        long started = System.nanoTime();
        Proxy proxy = new Proxy(ProxyContainer.start(image, env), kafkaPort, healthPort, lfsPort);
        try {
            Eventually.await(DEADLINE, "the container's /readyz 200", () -> {
                if (!proxy.container().running()) {
                    throw new AssertionError("the container exited:\n" + proxy.container().logs());
                }
                return proxy.health("/readyz").statusCode() == 200;
            });
        } catch (RuntimeException | AssertionError e) {
            proxy.close();
            throw e;
        }
        System.out.printf("the container was ready %d ms after podman run%n",
                Duration.ofNanos(System.nanoTime() - started).toMillis());
        return proxy;
    }
}
