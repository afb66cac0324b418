package org.kafscale.proxy.lfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Meter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The security review's probes of the LFS listener (M2, L4, L6, L8, H3), each sent as the review
 * sent it, over a raw socket where the client is not a well-behaved HTTP client. After each, a
 * normal produce still succeeds.
 */
class LfsHostileInputIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "hostile";

    private static KafkaCluster cluster;
    private static S3Server s3;
    private static LfsTestBed lfs;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        cluster.createTopic(TOPIC, 1);
        s3 = S3Server.start();
        lfs = LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> s);
    }

    @AfterAll
    static void stop() {
        lfs.close();
        s3.close();
        cluster.close();
    }

    @Test
    void aChunkedProduceWithAMalformedChunkLineStoresNothingAndProducesNothing() throws Exception {
        // Given the topic's end offset and objects before
        long endBefore = endOffset(TOPIC);
        List<String> objectsBefore = objects(TOPIC);

        // When the review's M2 probe: 5 bytes, then a chunk-size line that is not hex
        Raw answer = raw("POST /lfs/produce HTTP/1.1\r\nHost: x\r\nX-Kafka-Topic: " + TOPIC
                + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZZ\r\nworld-more-data\r\n0\r\n\r\n");

        // Then a JSON 400, no object and no record
        assertEquals(400, answer.status(), answer.text());
        assertEquals("malformed_body", answer.json().get("code").asText());
        assertEquals(objectsBefore, objects(TOPIC));
        assertEquals(0, lfs.openMultipartUploads());
        assertWellBehavedProduceWorks();
        assertEquals(endBefore + 1, endOffset(TOPIC), "only the well-behaved produce wrote a record");
    }

    @Test
    void twoDifferentContentLengthsAreAnswered400BeforeTheClose() throws Exception {
        Raw answer = raw("POST /lfs/produce HTTP/1.1\r\nHost: x\r\nX-Kafka-Topic: " + TOPIC
                + "\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde");

        assertEquals(400, answer.status(), answer.text());
        assertEquals("malformed_request", answer.json().get("code").asText());
        assertWellBehavedProduceWorks();
    }

    @Test
    void aNonNumericContentLengthIsAnswered400() throws Exception {
        Raw answer = raw("POST /lfs/produce HTTP/1.1\r\nHost: x\r\nX-Kafka-Topic: " + TOPIC
                + "\r\nContent-Length: 0x3\r\n\r\nabc");

        assertEquals(400, answer.status(), answer.text());
        assertEquals("malformed_request", answer.json().get("code").asText());
    }

    @Test
    void aRequestLineOverTheLimitIsAnswered414() throws Exception {
        Raw answer = raw("GET /lfs/" + "a".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n");

        assertEquals(414, answer.status(), answer.text());
        assertEquals("uri_too_long", answer.json().get("code").asText());
        assertWellBehavedProduceWorks();
    }

    @Test
    void aHeaderBlockOverTheLimitIsAnswered431() throws Exception {
        Raw answer = raw("POST /lfs/produce HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(2 * 1024 * 1024)
                + "\r\nContent-Length: 1\r\n\r\nx");

        assertEquals(431, answer.status(), answer.text());
        assertEquals("headers_too_large", answer.json().get("code").asText());
        assertWellBehavedProduceWorks();
    }

    @Test
    void anInternalTopicIsNotWritable() throws Exception {
        HttpResponse<String> response = lfs.send(lfs.produce("__lfs_ops_state", "abc".getBytes()).build());

        assertEquals(400, response.statusCode(), response.body());
        assertEquals("invalid_topic", JSON.readTree(response.body()).get("code").asText());
    }

    @Test
    void anOversizedRequestIdIsRefusedAndNotEchoed() throws Exception {
        HttpResponse<String> response = lfs.send(lfs.produce(TOPIC, "abc".getBytes())
                .header("X-Request-ID", "r".repeat(500_000)).build());

        assertEquals(400, response.statusCode(), response.body());
        assertEquals("invalid_request", JSON.readTree(response.body()).get("code").asText());
        assertEquals(36, response.headers().firstValue("X-Request-ID").orElse("").length(), "a generated UUID");
    }

    @Test
    void anOversizedContentTypeIsRefusedBeforeAnythingIsStored() throws Exception {
        List<String> before = objects(TOPIC);

        HttpResponse<String> response = lfs.send(lfs.produce(TOPIC, "abc".getBytes())
                .header("Content-Type", "text/" + "x".repeat(500_000)).build());

        assertEquals(400, response.statusCode(), response.body());
        assertEquals("invalid_request", JSON.readTree(response.body()).get("code").asText());
        assertEquals(before, objects(TOPIC));
    }

    @Test
    void aControlCharacterInAHeaderValueIsRefused() throws Exception {
        Raw answer = raw("POST /lfs/produce HTTP/1.1\r\nHost: x\r\nX-Kafka-Topic: " + TOPIC
                + "\r\nX-Request-ID: a\u0001b\r\nContent-Length: 3\r\n\r\nabc");

        assertTrue(answer.status() == 400, answer.text());
        assertFalse(answer.text().contains("a\u0001b"), "the value is not echoed");
    }

    @Test
    void lenientNumbersInADownloadClaimAreRefused() throws Exception {
        for (String size : List.of("\"27\"", "27.9", "18446744073709551643")) {
            HttpResponse<String> response = lfs.send(HttpRequest.newBuilder(lfs.uri("/lfs/download"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"bucket\":\"" + LfsTestBed.BUCKET
                            + "\",\"key\":\"default/" + TOPIC + "/lfs/x\",\"mode\":\"stream\",\"integrity\":{\"sha256\":\""
                            + "a".repeat(64) + "\",\"size\":" + size + "}}")).build());

            assertEquals(400, response.statusCode(), size + ": " + response.body());
            assertEquals("invalid_integrity", JSON.readTree(response.body()).get("code").asText(), size);
        }
    }

    @Test
    void rejectedTopicNamesDoNotBecomeMetricLabels() throws Exception {
        // When the review's H3 probe, shortened: rejected produces with client-chosen topic names
        for (int i = 0; i < 50; i++) {
            lfs.send(lfs.produce("bad topic " + i + " " + "x".repeat(100), new byte[] {1}).build());
            lfs.send(lfs.produce("no-such-topic-" + i, new byte[] {1}).build());
        }
        assertWellBehavedProduceWorks();

        // Then the only topic labels are the topic that exists and "other"
        Set<String> labels = lfs.registry().find("kafscale_lfs_proxy_requests").meters().stream()
                .map(Meter::getId).map(id -> id.getTag("topic")).collect(Collectors.toSet());
        assertEquals(Set.of(TOPIC, LfsMetrics.OTHER_TOPIC), labels);
    }

    private static void assertWellBehavedProduceWorks() {
        HttpResponse<String> ok = lfs.send(lfs.produce(TOPIC, "well-behaved".getBytes(StandardCharsets.UTF_8)).build());
        assertEquals(200, ok.statusCode(), ok.body());
    }

    private static List<String> objects(String topic) {
        return lfs.objectKeys().stream().filter(k -> k.contains("/" + topic + "/")).toList();
    }

    private static long endOffset(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            TopicPartition partition = new TopicPartition(topic, 0);
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition).get().offset();
        }
    }

    /** Sends {@code request} as it is and reads the answer until the proxy closes the connection. */
    private static Raw raw(String request) throws IOException {
        URI endpoint = lfs.uri("/");
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException stoppedReading) {
                // The proxy may answer and stop reading before all of an oversized request is sent.
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                answer.write(buffer, 0, n);
            }
            return new Raw(answer.toString(StandardCharsets.ISO_8859_1));
        }
    }

    private record Raw(String text) {
        int status() {
            return text.startsWith("HTTP/1.1 ") ? Integer.parseInt(text.substring(9, 12)) : -1;
        }

        JsonNode json() throws IOException {
            return JSON.readTree(text.substring(text.indexOf("\r\n\r\n") + 4));
        }
    }
}
