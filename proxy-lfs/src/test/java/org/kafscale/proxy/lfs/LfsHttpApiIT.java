package org.kafscale.proxy.lfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.testkit.TestCertificates;
import org.kafscale.proxy.lfs.http.TlsSettings;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * The HTTP contract of /lfs/produce and /lfs/download against real S3 and Kafka: the shared
 * conventions (CORS, request id, API key, S3 health), every validation error of spec §4.6 these
 * endpoints have, download integrity and presign mode.
 */
class LfsHttpApiIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String API_KEY = "s3cr3t-key";
    private static final String TOPIC = "api";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private static KafkaCluster cluster;
    private static S3Server s3;
    private static LfsTestBed lfs;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        cluster.createTopic(TOPIC, 2);
        s3 = S3Server.start();
        lfs = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.apiKey(s, API_KEY));
    }

    @AfterAll
    static void stop() {
        lfs.close();
        s3.close();
        cluster.close();
    }

    private static HttpRequest.Builder produce(byte[] body) {
        return lfs.produce(TOPIC, body).header("X-API-Key", API_KEY);
    }

    private static HttpResponse<String> download(String json) {
        return lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/download")).header("X-API-Key", API_KEY)
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private static String downloadJson(String key, String mode, String sha, long size) {
        return "{\"bucket\":\"" + LfsTestBed.BUCKET + "\",\"key\":\"" + key + "\",\"mode\":\"" + mode
                + "\",\"integrity\":{\"sha256\":\"" + sha + "\",\"size\":" + size + "}}";
    }

    private static void assertError(HttpResponse<String> response, int status, String code) throws Exception {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(""));
        JsonNode body = JSON.readTree(response.body());
        assertEquals(code, body.get("code").asText(), response.body());
        assertFalse(body.get("message").asText().isEmpty());
        assertEquals(response.headers().firstValue("X-Request-ID").orElse("?"), body.get("request_id").asText());
        assertTrue(response.body().endsWith("}\n"), "a newline ends the error body");
    }

    private static Envelope produced(byte[] payload) {
        HttpResponse<String> response = lfs.send(produce(payload).build());
        assertEquals(200, response.statusCode(), response.body());
        return EnvelopeCodec.decode(response.body().trim().getBytes(StandardCharsets.UTF_8));
    }

    // ---- shared conventions ----

    @Test
    void preflightWithoutAnOriginIsAnswered204BeforeAuthWithoutCorsOrRequestId() {
        HttpResponse<String> response = lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/produce"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());

        assertEquals(204, response.statusCode());
        assertTrue(response.headers().firstValue("Access-Control-Allow-Origin").isEmpty());
        assertTrue(response.headers().firstValue("X-Request-ID").isEmpty());
    }

    @Test
    void preflightFromAnOriginThatIsNotAllowedIsRefused() throws Exception {
        // Given no allowed origins (the default); When a page on another origin asks
        HttpResponse<String> preflight = lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/produce"))
                .header("Origin", "https://evil.example").header("Access-Control-Request-Method", "POST")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
        HttpResponse<String> post = lfs.send(produce(new byte[] {1}).header("Origin", "https://evil.example").build());

        // Then the preflight is refused and no answer grants the origin anything
        assertError(preflight, 403, "origin_not_allowed");
        assertTrue(preflight.headers().firstValue("Access-Control-Allow-Origin").isEmpty());
        assertTrue(post.headers().firstValue("Access-Control-Allow-Origin").isEmpty());
    }

    @Test
    void requestIdIsEchoedOrGenerated() {
        HttpResponse<String> echoed = lfs.send(produce(new byte[0]).header("X-Request-ID", " trace-7 ").build());
        HttpResponse<String> generated = lfs.send(produce(new byte[0]).build());

        assertEquals("trace-7", echoed.headers().firstValue("X-Request-ID").orElse(""));
        assertEquals(36, generated.headers().firstValue("X-Request-ID").orElse("").length(), "a UUID");
    }

    @Test
    void apiKeyIsRequiredFromEitherHeaderAndCaseInsensitiveBearer() throws Exception {
        assertError(lfs.send(lfs.produce(TOPIC, new byte[] {1}).build()), 401, "unauthorized");
        assertError(lfs.send(lfs.produce(TOPIC, new byte[] {1}).header("X-API-Key", "wrong").build()), 401,
                "unauthorized");
        assertEquals(200, lfs.send(lfs.produce(TOPIC, new byte[] {1}).header("Authorization", "bEaReR " + API_KEY)
                .build()).statusCode());
        assertError(lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/download"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build()), 401, "unauthorized");
    }

    @Test
    void documentationIsPublicAndServedFromTheJar() {
        HttpResponse<String> openapi = lfs.send(HttpRequest.newBuilder(lfs.uri("/api/openapi.yaml")).build());
        HttpResponse<String> page = lfs.send(HttpRequest.newBuilder(lfs.uri("/swagger/")).build());
        HttpResponse<String> bundle = lfs.send(HttpRequest.newBuilder(lfs.uri("/swagger/ui/swagger-ui-bundle.js"))
                .build());

        assertEquals(200, openapi.statusCode());
        assertEquals("application/yaml", openapi.headers().firstValue("Content-Type").orElse(""));
        assertTrue(openapi.body().contains("/lfs/produce") && openapi.body().contains("/lfs/uploads/{upload_id}/complete"));
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("/swagger/ui/swagger-ui-bundle.js") && !page.body().contains("unpkg"));
        assertEquals(200, bundle.statusCode());
        assertTrue(bundle.body().length() > 100_000);
    }

    @Test
    void unknownPathGetsPlain404() {
        HttpResponse<String> response = lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/nope")).build());
        assertEquals(404, response.statusCode());
        assertEquals("404 page not found\n", response.body());
    }

    // ---- produce validation (spec §4.3 order) ----

    @Test
    void produceValidationErrors() throws Exception {
        // The method is checked before the API key, as in the spec's order.
        assertError(lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/produce")).GET().build()), 405,
                "method_not_allowed");
        assertError(lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/produce")).header("X-API-Key", API_KEY)
                .POST(HttpRequest.BodyPublishers.ofString("x")).build()), 400, "missing_topic");
        assertError(lfs.send(lfs.produce("bad topic!", new byte[] {1}).header("X-API-Key", API_KEY).build()), 400,
                "invalid_topic");
        assertError(lfs.send(lfs.produce("t".repeat(250), new byte[] {1}).header("X-API-Key", API_KEY).build()), 400,
                "invalid_topic");
        assertError(lfs.send(produce(new byte[] {1}).header("X-Kafka-Key", "not base64!").build()), 400, "invalid_key");
        assertError(lfs.send(produce(new byte[] {1}).header("X-Kafka-Partition", "one").build()), 400,
                "invalid_partition");
        assertError(lfs.send(produce(new byte[] {1}).header("X-Kafka-Partition", "-1").build()), 400,
                "invalid_partition");
        assertError(lfs.send(produce(new byte[] {1}).header("X-Kafka-Partition", "7").build()), 400,
                "invalid_partition");
        assertError(lfs.send(produce(new byte[] {1}).header("X-LFS-Checksum-Alg", "sha1").build()), 400,
                "invalid_request");
        assertError(lfs.send(produce(new byte[] {1}).header("X-LFS-Checksum-Alg", "none")
                .header("X-LFS-Checksum", "abc").build()), 400, "invalid_checksum");
        assertError(lfs.send(produce(new byte[0]).build()), 400, "empty_upload");
        assertError(lfs.send(lfs.produce("missing-topic", new byte[] {1}).header("X-API-Key", API_KEY).build()), 400,
                "invalid_topic");
        assertEquals(List.of(), lfs.objectKeys().stream().filter(k -> k.contains("/missing-topic/")).toList());
    }

    @Test
    void payloadLargerThanTheLimitIsRefusedAndLeavesNothing() throws Exception {
        try (LfsTestBed small = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.maxBlobSize(s,
                6L * 1024 * 1024))) {
            // Declared too large: refused before anything happens.
            assertError(small.send(small.produce(TOPIC, new byte[7 * 1024 * 1024]).build()), 400, "payload_too_large");
            // Not declared (chunked): noticed while streaming, the started multipart upload is aborted.
            HttpRequest chunked = HttpRequest.newBuilder(small.uri("/lfs/produce")).header("X-Kafka-Topic", "chunked")
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                            new byte[7 * 1024 * 1024]))).build();
            cluster.createTopic("chunked", 1);
            assertError(small.send(chunked), 400, "payload_too_large");
            Eventually.await(DEADLINE, "the multipart upload to be aborted", () -> small.openMultipartUploads() == 0);
            assertEquals(List.of(), small.objectKeys().stream().filter(k -> k.contains("/chunked/")).toList());
        }
    }

    @Test
    void clientGoneMidBodyLeavesNoObject() throws Exception {
        // Given: a topic produced to once (so its metrics carry its name), then a produce declaring
        // 8 MiB (streamed into one S3 PUT) of which only 3 MiB arrive
        String topic = "client-gone";
        cluster.createTopic(topic, 1);
        assertEquals(200, lfs.send(lfs.produce(topic, new byte[] {1}).header("X-API-Key", API_KEY).build()).statusCode());
        List<String> before = lfs.objectKeys().stream().filter(k -> k.contains("/" + topic + "/")).toList();
        URI endpoint = lfs.uri("/lfs/produce");
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /lfs/produce HTTP/1.1\r\nHost: " + endpoint.getAuthority() + "\r\nX-Kafka-Topic: " + topic
                    + "\r\nX-API-Key: " + API_KEY + "\r\nContent-Length: " + (8 * 1024 * 1024) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[3 * 1024 * 1024]);
            out.flush();
            // When: the client goes away
        }
        // Then: the PUT is abandoned: no object, no open upload, and the proxy still serves
        Eventually.await(DEADLINE, "the abandoned upload to be counted as failed",
                () -> lfs.registry().find("kafscale_lfs_proxy_requests").tags("topic", topic, "status", "error")
                        .counter() != null);
        // (the store may still be removing the partial PUT's temporary file when the error is counted)
        Eventually.await(DEADLINE, "no object but the earlier one", () ->
                before.equals(lfs.objectKeys().stream().filter(k -> k.contains("/" + topic + "/")).toList()));
        // (and the abort of its multipart upload may land after the error is counted too)
        Eventually.await(DEADLINE, "no open multipart upload", () -> lfs.openMultipartUploads() == 0);
        assertEquals(0, lfs.openMultipartUploads());
        assertEquals(200, lfs.send(produce(new byte[] {1}).build()).statusCode());
    }

    @Test
    void unhealthyS3AnswersProxyNotReady() throws Exception {
        // Given: a module whose S3 endpoint does not answer, checked every second
        S3Settings dead = new S3Settings(LfsTestBed.BUCKET, "us-east-1",
                Optional.of(URI.create("http://127.0.0.1:" + LfsTestBed.deadPort())), Optional.empty(), "a", "b", "",
                true, false, Duration.ofSeconds(1));
        try (LfsTestBed broken = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.s3(s, dead))) {
            Eventually.await(DEADLINE, "S3 to be unhealthy", () -> !broken.module().context().s3Health().healthy());
            // Then
            assertError(broken.send(broken.produce(TOPIC, new byte[] {1}).build()), 503, "proxy_not_ready");
            assertError(broken.send(broken.download("default/x/lfs/k", "a".repeat(64), 1)), 503, "proxy_not_ready");
        }
    }

    @Test
    void topicRecreatedDuringTheUploadDeletesTheObject() throws Exception {
        // Given: an upload under way
        String topic = "recreated";
        cluster.createTopic(topic, 1);
        lfs.module().context().topology().lookupTopics(List.of(topic), false).toCompletableFuture().join();
        GatedBody body = new GatedBody(6L * 1024 * 1024, 7L * 1024 * 1024);
        CompletableFuture<HttpResponse<String>> response = lfs.startPausedProduce(
                lfs.produce(topic, new byte[0]).header("X-API-Key", API_KEY), body);
        // When: the topic is deleted and created again under the same name
        cluster.admin().deleteTopics(List.of(topic)).all().get();
        Eventually.await(DEADLINE, "the topic to be gone", () -> assertFalse(cluster.admin().listTopics().names().get()
                .contains(topic)));
        cluster.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        body.release();
        // Then
        assertError(response.join(), 503, "metadata_unavailable");
        assertEquals(List.of(), lfs.objectKeys().stream().filter(k -> k.contains("/" + topic + "/")).toList());
    }

    // ---- download ----

    @Test
    void downloadValidationErrors() throws Exception {
        String sha = "ab".repeat(32);
        String key = "default/api/lfs/2026/01/01/obj-x";
        assertError(lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/download")).header("X-API-Key", API_KEY).GET()
                .build()), 405, "method_not_allowed");
        assertError(download("{not json"), 400, "invalid_request");
        assertError(download("{\"bucket\":\" \",\"key\":\"k\"}"), 400, "invalid_request");
        assertError(download(downloadJson(key, "stream", sha, 1).replace(LfsTestBed.BUCKET, "other")), 400,
                "invalid_bucket");
        assertError(download(downloadJson("/default/api/lfs/x", "stream", sha, 1)), 400, "invalid_key");
        assertError(download(downloadJson("default/../etc/lfs/x", "stream", sha, 1)), 400, "invalid_key");
        assertError(download(downloadJson("other/api/lfs/x", "stream", sha, 1)), 400, "invalid_key");
        assertError(download(downloadJson("default/api/x", "stream", sha, 1)), 400, "invalid_key");
        assertError(download(downloadJson(key, "torrent", sha, 1)), 400, "invalid_mode");
        assertError(download(downloadJson(key, "presign", sha, 1)), 400, "presign_disabled");
        assertError(download("{\"bucket\":\"" + LfsTestBed.BUCKET + "\",\"key\":\"" + key + "\"}"), 400,
                "missing_integrity");
        assertError(download(downloadJson(key, "stream", "xyz", 1)), 400, "invalid_integrity");
        assertError(download(downloadJson(key, "stream", sha, -1)), 400, "invalid_integrity");
        assertError(download(downloadJson(key, "stream", sha, 1).replace("\"size\"",
                "\"checksum_alg\":\"md5\",\"size\"")), 400, "unsupported_checksum_alg");
        assertError(download(downloadJson(key, "stream", sha, 0)), 400, "missing_integrity_size");
        assertError(download(downloadJson(key, "", sha, Long.MAX_VALUE)), 400, "payload_too_large");
        assertError(download(downloadJson(key, "stream", sha, 10)), 502, "s3_get_failed");
    }

    @Test
    void tamperedObjectOfTheSameSizeIsRefusedWithoutPayloadBytes() throws Exception {
        // Given: an object produced through the API, then overwritten in S3 with other bytes of the same size
        byte[] payload = "the original payload".getBytes(StandardCharsets.UTF_8);
        Envelope envelope = produced(payload);
        byte[] tampered = "THE TAMPERED PAYLOAD".getBytes(StandardCharsets.UTF_8);
        s3.client().putObject(b -> b.bucket(LfsTestBed.BUCKET).key(envelope.key()), RequestBody.fromBytes(tampered));
        // When
        HttpResponse<byte[]> response = lfs.sendForBytes(HttpRequest.newBuilder(lfs.uri("/lfs/download"))
                .header("X-API-Key", API_KEY).POST(HttpRequest.BodyPublishers.ofString(downloadJson(envelope.key(),
                        "stream", envelope.sha256(), envelope.size()))).build());
        // Then: an error, and not one byte of the object
        assertEquals(502, response.statusCode());
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals("integrity_failure", JSON.readTree(body).get("code").asText());
        assertFalse(body.contains("TAMPERED"));
        assertTrue(response.headers().firstValue("X-Kafscale-LFS-Checksum").isEmpty());
    }

    @Test
    void objectLargerThanClaimedIsRefused() throws Exception {
        Envelope envelope = produced(new byte[] {1, 2, 3});
        HttpResponse<String> response = download(downloadJson(envelope.key(), "stream", envelope.sha256(), 2));
        assertError(response, 502, "integrity_failure");
        assertTrue(response.body().contains("exceeds"));
    }

    @Test
    void unwritableTempDirectoryAnswersTempStorageFailed() throws Exception {
        Envelope envelope = produced(new byte[] {9});
        try (LfsTestBed noTemp = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.tempDir(s,
                Path.of("/nonexistent-lfs-temp")))) {
            assertError(noTemp.send(noTemp.download(envelope.key(), envelope.sha256(), 1)), 500, "temp_storage_failed");
        }
    }

    @Test
    void presignModeAnswersAUrlThatServesTheObject() throws Exception {
        Envelope envelope = produced("presigned bytes".getBytes(StandardCharsets.UTF_8));
        try (LfsTestBed presign = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.presign(s,
                Duration.ofSeconds(60)))) {
            HttpResponse<String> response = presign.send(HttpRequest.newBuilder(presign.uri("/lfs/download"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"bucket\":\"" + LfsTestBed.BUCKET + "\",\"key\":\""
                            + envelope.key() + "\",\"mode\":\"PRESIGN\",\"expires_seconds\":600,\"integrity\":"
                            + "{\"sha256\":\"" + envelope.sha256().toUpperCase() + "\"}}")).build());
            assertEquals(200, response.statusCode(), response.body());
            JsonNode body = JSON.readTree(response.body());
            assertEquals("presign", body.get("mode").asText());
            assertEquals(envelope.sha256(), body.get("integrity").get("sha256").asText());
            assertFalse(body.get("integrity").has("size"), "size 0 is left out");
            HttpResponse<byte[]> object = presign.sendForBytes(HttpRequest.newBuilder(URI.create(body.get("url")
                    .asText())).build());
            assertEquals(200, object.statusCode());
            assertArrayEquals("presigned bytes".getBytes(StandardCharsets.UTF_8), object.body());
        }
    }

    @Test
    void overHttpsTheVerifiedDownloadIsSentInChunks() throws Exception {
        Path dir = java.nio.file.Files.createTempDirectory("lfs-https");
        TestCertificates ca = TestCertificates.create(dir);
        TestCertificates.Identity cert = ca.server();
        try (LfsTestBed https = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> SettingsEdits.tls(s,
                new TlsSettings(cert.chainFile(), cert.keyFile(), Optional.empty(), false)))) {
            java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                    .sslContext(ca.clientContext(null))
                    .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
            URI base = URI.create("https://127.0.0.1:" + https.module().httpAddress().getPort());
            byte[] payload = new byte[3 * 1024 * 1024 + 17];
            new java.util.Random(3).nextBytes(payload);
            HttpResponse<String> produced = client.send(HttpRequest.newBuilder(base.resolve("/lfs/produce"))
                    .header("X-Kafka-Topic", TOPIC).POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, produced.statusCode(), produced.body());
            Envelope envelope = EnvelopeCodec.decode(produced.body().trim().getBytes(StandardCharsets.UTF_8));

            HttpResponse<byte[]> downloaded = client.send(HttpRequest.newBuilder(base.resolve("/lfs/download"))
                    .POST(HttpRequest.BodyPublishers.ofString(downloadJson(envelope.key(), "stream",
                            envelope.sha256(), envelope.size()))).build(), HttpResponse.BodyHandlers.ofByteArray());

            assertEquals(200, downloaded.statusCode());
            assertArrayEquals(payload, downloaded.body());
        }
    }

}
