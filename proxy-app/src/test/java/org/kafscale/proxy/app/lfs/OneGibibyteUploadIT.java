package org.kafscale.proxy.app.lfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.Main;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;
import org.kafscale.proxy.testkit.TempDirs;

/**
 * Memory stays bounded whatever the payload size: a 1 GiB /lfs/produce succeeds through a proxy
 * whose heap is capped at 256 MiB. The proxy runs in a child JVM (the real Main, this test's
 * classpath); S3Proxy keeps its objects on disk and the body is generated as it is sent, so the
 * test JVM holds none of it either.
 */
class OneGibibyteUploadIT {
    private static final long SIZE = 1L << 30;
    private static final String TOPIC = "big";
    private static final String BUCKET = "lfs-big";

    @Test
    void oneGibibyteUploadSucceedsWithA256MiBHeap() throws Exception {
        Path work = Files.createTempDirectory("lfs-1gib");
        Path blobs = Files.createDirectories(work.resolve("s3"));
        try (KafkaCluster cluster = KafkaCluster.start(1); S3Server s3 = S3Server.startOnDisk(blobs)) {
            // Given
            cluster.createTopic(TOPIC, 1);
            s3.createBucket(BUCKET);
            int kafkaPort = FreePorts.next();
            int lfsPort = FreePorts.next();
            Process proxy = startProxy(Map.of(
                    "KAFSCALE_PROXY_ADDR", "127.0.0.1:" + kafkaPort,
                    "KAFSCALE_PROXY_ADVERTISED_HOST", "127.0.0.1",
                    "KAFSCALE_PROXY_BACKENDS", cluster.bootstrapServers(),
                    "KAFSCALE_PROXY_LFS_ENABLED", "true",
                    "KAFSCALE_LFS_PROXY_HTTP_ADDR", "127.0.0.1:" + lfsPort,
                    "KAFSCALE_LFS_PROXY_S3_BUCKET", BUCKET,
                    "KAFSCALE_LFS_PROXY_S3_REGION", "us-east-1",
                    "KAFSCALE_LFS_PROXY_S3_ENDPOINT", s3.endpoint().toString(),
                    "KAFSCALE_LFS_PROXY_S3_ACCESS_KEY", s3.accessKey(),
                    "KAFSCALE_LFS_PROXY_S3_SECRET_KEY", s3.secretKey()), work.resolve("proxy.log"));
            try {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                URI base = URI.create("http://127.0.0.1:" + lfsPort);
                Eventually.await(Duration.ofSeconds(60), "the child proxy's LFS listener", () -> assertEquals(200,
                        http.send(HttpRequest.newBuilder(base.resolve("/api/openapi.yaml")).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode()));

                // When
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(base.resolve("/lfs/produce"))
                        .header("X-Kafka-Topic", TOPIC)
                        .POST(HttpRequest.BodyPublishers.fromPublisher(
                                HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(SIZE)), SIZE))
                        .build(), HttpResponse.BodyHandlers.ofString());

                // Then
                assertEquals(200, response.statusCode(), response.body());
                JsonNode envelope = new ObjectMapper().readTree(response.body());
                assertEquals(SIZE, envelope.get("size").asLong());
                assertEquals(patternSha256(), envelope.get("sha256").asText());
                assertEquals(SIZE, s3.client().headObject(b -> b.bucket(BUCKET).key(envelope.get("key").asText()))
                        .contentLength());
                assertEquals(true, proxy.isAlive(), "the proxy did not run out of memory");
            } finally {
                proxy.destroy();
                if (!proxy.waitFor(20, TimeUnit.SECONDS)) {
                    proxy.destroyForcibly();
                }
            }
        } finally {
            TempDirs.deleteRecursively(work);
        }
    }

    private static Process startProxy(Map<String, String> env, Path log) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", classpath, Main.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("KAFSCALE_"));
        builder.environment().putAll(env);
        return builder.start();
    }

    private static String patternSha256() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[1 << 20];
        try (PatternStream in = new PatternStream(SIZE)) {
            int n;
            while ((n = in.read(buffer, 0, buffer.length)) > 0) {
                sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
