package org.kafscale.proxy.lfs.uploads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.lfs.uploads.UploadsTestbed.MIB;
import static org.kafscale.proxy.lfs.uploads.UploadsTestbed.payload;
import static org.kafscale.proxy.lfs.uploads.UploadsTestbed.sha256;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kafscale.proxy.lfs.LfsModule;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.uploads.UploadsTestbed.StoreKind;

/**
 * {@code /lfs/uploads} over HTTP through two proxy replicas that share etcd or the bucket, the
 * client alternating between them as a Service would spread its requests.
 */
class UploadHttpIT {

    private static final String TOPIC = "uploads-http";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static UploadsTestbed testbed;
    /** Per store kind: replica A and replica B. */
    private static final List<URI> ETCD_REPLICAS = new ArrayList<>();
    private static final List<URI> BUCKET_REPLICAS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        testbed = UploadsTestbed.start(TOPIC);
        for (int i = 0; i < 2; i++) {
            ETCD_REPLICAS.add(replica(Optional.of(testbed.etcdClient)));
            BUCKET_REPLICAS.add(replica(Optional.empty()));
        }
    }

    private static URI replica(Optional<io.etcd.jetcd.Client> etcd) throws Exception {
        UploadRoutes routes = new UploadRoutes(etcd, Clock.systemUTC());
        LfsModule module = testbed.startReplica(Duration.ofHours(1), List.of(routes));
        // Closed before the module's clients, like the application would.
        routes.close();
        return URI.create("http://127.0.0.1:" + module.httpAddress().getPort());
    }

    @AfterAll
    static void stop() throws Exception {
        testbed.close();
    }

    private static List<URI> replicas(StoreKind kind) {
        return kind == StoreKind.ETCD ? ETCD_REPLICAS : BUCKET_REPLICAS;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void partsSpreadOverTwoReplicasCompleteAndTheEnvelopeNamesTheWholeBody(StoreKind kind) throws Exception {
        // Given an upload started on replica A
        URI a = replicas(kind).get(0);
        URI b = replicas(kind).get(1);
        byte[][] parts = {payload(5 * MIB, 101), payload(5 * MIB, 102), payload(5 * MIB, 103), payload(4321, 104)};
        long size = 0;
        for (byte[] part : parts) {
            size += part.length;
        }
        JsonNode init = json(post(a, "/lfs/uploads", "{\"topic\":\"" + TOPIC + "\",\"content_type\":\"video/mp4\","
                + "\"size_bytes\":" + size + ",\"key\":\"a2V5\",\"checksum\":\"" + sha256(parts) + "\"}"), 200);
        String id = init.get("upload_id").asText();
        assertEquals(5 * MIB, init.get("part_size").asInt());

        // When the parts alternate between the replicas, one of them sent twice, and B completes
        List<String> etags = new ArrayList<>();
        for (int n = 1; n <= parts.length; n++) {
            URI replica = n % 2 == 1 ? a : b;
            JsonNode receipt = json(put(replica, "/lfs/uploads/" + id + "/parts/" + n, parts[n - 1]), 200);
            assertEquals(n, receipt.get("part_number").asInt());
            etags.add(receipt.get("etag").asText());
        }
        JsonNode retried = json(put(b, "/lfs/uploads/" + id + "/parts/1", parts[0]), 200);
        assertEquals(etags.get(0), retried.get("etag").asText());
        HttpResponse<String> completed = post(b, "/lfs/uploads/" + id + "/complete", completeBody(etags));

        // Then the answer is the envelope with the SHA-256 of the whole body, and Kafka and S3 agree
        JsonNode envelope = json(completed, 200);
        assertTrue(completed.body().startsWith("{\"kfs_lfs\":1,"), completed.body());
        assertEquals(sha256(parts), envelope.get("sha256").asText());
        assertEquals(size, envelope.get("size").asLong());
        assertEquals("video/mp4", envelope.get("content_type").asText());
        String key = envelope.get("key").asText();
        assertEquals(init.get("s3_key").asText(), key);
        assertEquals(sha256(parts), sha256(testbed.object(key)));
        HttpResponse<byte[]> download = HTTP.send(HttpRequest.newBuilder(a.resolve("/lfs/download"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"bucket\":\"" + UploadsTestbed.BUCKET + "\",\"key\":\""
                        + key + "\",\"mode\":\"stream\",\"integrity\":{\"sha256\":\"" + sha256(parts)
                        + "\",\"size\":" + size + "}}")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, download.statusCode());
        assertEquals(sha256(parts), sha256(download.body()));
        String expectedSha = sha256(parts);
        assertTrue(testbed.recordValues(TOPIC).stream().map(EnvelopeCodec::decode)
                .anyMatch(e -> e.key().equals(key) && e.sha256().equals(expectedSha)));
        assertEquals("upload_not_found", code(delete(a, "/lfs/uploads/" + id), 404));
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void concurrentCompletesOfOneUploadOnOneReplicaProduceOneRecordAndOne200(StoreKind kind) throws Exception {
        // Given an upload whose only part is in (the review's M1 probe: 1 MiB, 4 completes at once)
        URI a = replicas(kind).get(0);
        byte[] body = payload(MIB, 201);
        String id = json(post(a, "/lfs/uploads", "{\"topic\":\"" + TOPIC + "\",\"content_type\":\"a/b\","
                + "\"size_bytes\":" + MIB + "}"), 200).get("upload_id").asText();
        String etag = json(put(a, "/lfs/uploads/" + id + "/parts/1", body), 200).get("etag").asText();
        String complete = completeBody(List.of(etag));

        // When four completes of it arrive at once
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(HTTP.sendAsync(HttpRequest.newBuilder(a.resolve("/lfs/uploads/" + id + "/complete"))
                    .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(complete)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> responses = answers.stream().map(java.util.concurrent.CompletableFuture::join)
                .toList();

        // Then exactly one 200, the others 409 upload_completing (or 404 once it is done), and one record
        List<HttpResponse<String>> ok = responses.stream().filter(r -> r.statusCode() == 200).toList();
        assertEquals(1, ok.size(), responses.stream().map(HttpResponse::body).toList().toString());
        for (HttpResponse<String> other : responses) {
            assertTrue(other.statusCode() == 200 || other.statusCode() == 409 || other.statusCode() == 404,
                    other.body());
        }
        String key = JSON.readTree(ok.get(0).body()).get("key").asText();
        assertEquals(1, testbed.recordValues(TOPIC).stream().map(EnvelopeCodec::decode)
                .filter(e -> e.key().equals(key)).count());
    }

    @Test
    void aPartWhoseBodyBreaksOffLeavesTheUploadAsItWas() throws Exception {
        // Given an upload on the replicas that share etcd
        URI a = ETCD_REPLICAS.get(0);
        URI b = ETCD_REPLICAS.get(1);
        byte[] part1 = payload(5 * MIB, 201);
        byte[] part2 = payload(100, 202);
        JsonNode init = json(post(a, "/lfs/uploads", "{\"topic\":\"" + TOPIC + "\",\"content_type\":\"a/b\","
                + "\"size_bytes\":" + (part1.length + part2.length) + "}"), 200);
        String id = init.get("upload_id").asText();

        // When a client sends half of part 1 to A and goes away
        try (Socket socket = new Socket(a.getHost(), a.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /lfs/uploads/" + id + "/parts/1 HTTP/1.1\r\nHost: proxy\r\nContent-Length: "
                    + part1.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(part1, 0, part1.length / 2);
            out.flush();
        }

        // Then part 1 can be sent again, whole, and the object is exactly the parts sent whole
        String etag1 = json(put(b, "/lfs/uploads/" + id + "/parts/1", part1), 200).get("etag").asText();
        String etag2 = json(put(a, "/lfs/uploads/" + id + "/parts/2", part2), 200).get("etag").asText();
        JsonNode envelope = json(post(b, "/lfs/uploads/" + id + "/complete", completeBody(List.of(etag1, etag2))), 200);
        assertEquals(sha256(part1, part2), envelope.get("sha256").asText());
        assertEquals(sha256(part1, part2), sha256(testbed.object(envelope.get("key").asText())));
    }

    @Test
    void errorsCarryTheSpecsStatusesAndCodes() throws Exception {
        URI a = ETCD_REPLICAS.get(0);
        URI b = ETCD_REPLICAS.get(1);
        JsonNode init = json(post(a, "/lfs/uploads", "{\"topic\":\"" + TOPIC + "\",\"content_type\":\"a/b\","
                + "\"size_bytes\":" + (11 * MIB) + "}"), 200);
        String id = init.get("upload_id").asText();

        assertEquals("out_of_order", code(put(b, "/lfs/uploads/" + id + "/parts/2", payload(5 * MIB, 1)), 409));
        assertEquals("invalid_part", code(put(b, "/lfs/uploads/" + id + "/parts/x", new byte[1]), 400));
        assertEquals("invalid_part", code(put(b, "/lfs/uploads/" + id + "/parts/1", payload(1000, 2)), 400));
        assertEquals("incomplete_upload", code(post(b, "/lfs/uploads/" + id + "/complete", "{\"parts\":[]}"), 400));
        assertEquals("upload_not_found", code(post(b, "/lfs/uploads/nope/complete", "{oops"), 404));
        assertEquals("upload_not_found", code(put(a, "/lfs/uploads/nope/parts/1", new byte[1]), 404));
        String unknown = java.util.UUID.randomUUID().toString();
        assertEquals("upload_not_found", code(put(a, "/lfs/uploads/" + unknown + "/parts/1", new byte[1]), 404));
        assertEquals("method_not_allowed", code(send(a, "/lfs/uploads", "GET", HttpRequest.BodyPublishers.noBody()), 405));
        assertEquals("not_found",
                code(send(a, "/lfs/uploads/" + id + "/complete", "GET", HttpRequest.BodyPublishers.noBody()), 404));
        assertEquals("missing_content_type",
                code(post(a, "/lfs/uploads", "{\"topic\":\"" + TOPIC + "\",\"size_bytes\":1}"), 400));
        assertEquals("invalid_request", code(post(a, "/lfs/uploads", "{not json"), 400));

        HttpResponse<String> deleted = delete(b, "/lfs/uploads/" + id);
        assertEquals(204, deleted.statusCode());
        assertEquals(List.of(), testbed.openUploads(init.get("s3_key").asText()));
    }

    private static String completeBody(List<String> etags) throws Exception {
        List<Object> parts = new ArrayList<>();
        for (int i = 0; i < etags.size(); i++) {
            parts.add(java.util.Map.of("part_number", i + 1, "etag", etags.get(i)));
        }
        return JSON.writeValueAsString(java.util.Map.of("parts", parts));
    }

    private static String code(HttpResponse<String> response, int status) throws Exception {
        return json(response, status).get("code").asText();
    }

    private static JsonNode json(HttpResponse<String> response, int status) throws Exception {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(""), response.body());
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> post(URI base, String path, String body) throws Exception {
        return send(base, path, "POST", HttpRequest.BodyPublishers.ofString(body));
    }

    private static HttpResponse<String> put(URI base, String path, byte[] body) throws Exception {
        return send(base, path, "PUT", HttpRequest.BodyPublishers.ofByteArray(body));
    }

    private static HttpResponse<String> delete(URI base, String path) throws Exception {
        return send(base, path, "DELETE", HttpRequest.BodyPublishers.noBody());
    }

    private static HttpResponse<String> send(URI base, String path, String method, HttpRequest.BodyPublisher body)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .method(method, body).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
