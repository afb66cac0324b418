package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The LFS API as the application wires it from KafScale's settings: a payload posted to the LFS
 * listener becomes an envelope that a consumer reads through the proxy's Kafka listener, the
 * payload comes back from /lfs/download, and the LFS series are on the proxy's /metrics.
 */
class LfsProxyIT {
    private static final String TOPIC = "media";
    private static final String BUCKET = "proxy-lfs";

    @Test
    void payloadRoundTripsThroughTheConfiguredProxy() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.start(1); S3Server s3 = S3Server.start()) {
            cluster.createTopic(TOPIC, 1);
            s3.createBucket(BUCKET);
            try (RunningProxy proxy = RunningProxy.start(cluster, "single",
                    RunningProxy.lfsOn(s3, BUCKET, Map.of(LfsConfig.HTTP_API_KEY, "key-1")))) {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                byte[] payload = "a large payload, in spirit".getBytes(StandardCharsets.UTF_8);

                // When
                HttpResponse<String> produced = produce(http, proxy, payload);

                // Then
                assertEquals(200, produced.statusCode(), produced.body());
                JsonNode envelope = new ObjectMapper().readTree(produced.body());
                ConsumerRecord<byte[], byte[]> record = consumeOne(proxy.bootstrap());
                assertEquals(produced.body().trim(), new String(record.value(), StandardCharsets.UTF_8));
                HttpResponse<byte[]> downloaded = http.send(HttpRequest.newBuilder(
                        URI.create(proxy.lfsUrl("/lfs/download"))).header("X-API-Key", "key-1")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"bucket\":\"" + BUCKET + "\",\"key\":\""
                                + envelope.get("key").asText() + "\",\"integrity\":{\"sha256\":\""
                                + envelope.get("sha256").asText() + "\",\"size\":" + payload.length + "}}")).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, downloaded.statusCode());
                assertArrayEquals(payload, downloaded.body());
                String metrics = http.send(HttpRequest.newBuilder(URI.create(proxy.healthUrl("/metrics"))).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(metrics.contains("kafscale_lfs_proxy_requests_total{status=\"ok\",topic=\"media\",type=\"lfs\"} 1.0"),
                        metrics);
                assertTrue(metrics.contains("kafscale_lfs_proxy_upload_bytes_total"));
            }
        }
    }

    @Tag(RunningProxy.TLS_TAG)
    @Test
    void envelopesReachSaslSslBrokersAsTheProxysOwnIdentity() throws Exception {
        // Given: SASL_SSL brokers, and a proxy whose broker connections (LFS's included) use TLS and SCRAM
        Path certificates = Files.createTempDirectory("lfs-backend-certs");
        try (KafkaCluster cluster = KafkaCluster.start(1, BrokerSecurity.saslSsl(TestCertificates.create(certificates))
                .withScramUser("proxy", "proxy-secret")); S3Server s3 = S3Server.start()) {
            cluster.createTopic(TOPIC, 1);
            s3.createBucket(BUCKET);
            Map<String, String> settings = new HashMap<>(Map.of(LfsConfig.HTTP_API_KEY, "key-1",
                    ProxyConfig.BACKEND_TLS_ENABLED, "true",
                    ProxyConfig.BACKEND_TLS_CA_FILE, cluster.security().certificates().caFile().toString(),
                    ProxyConfig.BACKEND_SASL_MECHANISM, "SCRAM-SHA-512",
                    ProxyConfig.BACKEND_SASL_USERNAME, "proxy",
                    ProxyConfig.BACKEND_SASL_PASSWORD, "proxy-secret"));
            try (RunningProxy proxy = RunningProxy.start(cluster, "single", RunningProxy.lfsOn(s3, BUCKET, settings))) {
                // When
                HttpResponse<String> produced = produce(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .build(), proxy, "over SASL_SSL".getBytes(StandardCharsets.UTF_8));

                // Then: the envelope was produced, and reads back through the proxy
                assertEquals(200, produced.statusCode(), produced.body());
                assertEquals(produced.body().trim(),
                        new String(consumeOne(proxy.bootstrap()).value(), StandardCharsets.UTF_8));
            }
        } finally {
            TempDirs.deleteRecursively(certificates);
        }
    }

    private static HttpResponse<String> produce(HttpClient http, RunningProxy proxy, byte[] payload) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.lfsUrl("/lfs/produce")))
                        .header("X-Kafka-Topic", TOPIC).header("X-API-Key", "key-1")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static ConsumerRecord<byte[], byte[]> consumeOne(String bootstrap) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            AtomicReference<ConsumerRecord<byte[], byte[]>> found = new AtomicReference<>();
            Eventually.await(Duration.ofSeconds(30), "the envelope through the proxy", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(found::set);
                return found.get() != null;
            });
            return found.get();
        }
    }
}
