package org.kafscale.proxy.app.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The health listener against hostile clients (security review L5, H6): methods, timeouts, its own thread. */
class HealthServerTest {
    private final AtomicReference<String> answeredOn = new AtomicReference<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private HealthServer server;

    @BeforeEach
    void start() throws InterruptedException {
        server = HealthServer.start(new InetSocketAddress("127.0.0.1", 0), () -> {
            answeredOn.set(Thread.currentThread().getName());
            return new Readiness.Status(true, "ready\n");
        }, families -> families.isEmpty() ? "metric 1\n" : "only " + String.join(",", families) + "\n");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.localAddress().getPort()
                + path)).method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void onlyGetAndHeadAreAnswered() throws Exception {
        // When
        HttpResponse<String> post = send("POST", "/metrics");
        HttpResponse<String> delete = send("DELETE", "/metrics");
        HttpResponse<String> head = send("HEAD", "/metrics");
        HttpResponse<String> get = send("GET", "/metrics");

        // Then
        assertEquals(405, post.statusCode());
        assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(""));
        assertEquals(405, delete.statusCode());
        assertEquals(200, head.statusCode());
        assertEquals("", head.body());
        assertEquals(200, get.statusCode());
        assertEquals("metric 1\n", get.body());
    }

    @Test
    void theMetricFamiliesAScraperNamesReachThePage() throws Exception {
        // When: Prometheus' client-library parameter, repeated (URL-encoded, as scrapers send it)
        HttpResponse<String> some = send("GET", "/metrics?name%5B%5D=kafscale_proxy_client_connections"
                + "&name[]=kafscale_proxy_fetch_read_ahead_bytes&other=x");

        // Then
        assertEquals(200, some.statusCode());
        assertEquals("only kafscale_proxy_client_connections,kafscale_proxy_fetch_read_ahead_bytes\n", some.body());
    }

    @Test
    void aConnectionThatNeverFinishesItsRequestHeadIsClosedWhileProbesAreAnswered() throws Exception {
        // Given: the review's probe, a request head that never ends
        try (Socket partial = new Socket("127.0.0.1", server.localAddress().getPort())) {
            partial.setSoTimeout((int) HealthServer.HEAD_TIMEOUT.plusSeconds(20).toMillis());
            partial.getOutputStream().write("GET /readyz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            partial.getOutputStream().flush();

            // When
            HttpResponse<String> probe = send("GET", "/readyz");
            InputStream in = partial.getInputStream();

            // Then: probes are answered meanwhile; the partial connection is closed without an answer
            assertEquals(200, probe.statusCode());
            assertEquals(-1, in.read());
        }
    }

    @Test
    void probesAreAnsweredOnTheListenersOwnEventLoop() throws Exception {
        // When
        HttpResponse<String> ready = send("GET", "/readyz");

        // Then: not a Kafka worker ("kafka-io"), so neither can hold up the other
        assertEquals(200, ready.statusCode());
        assertTrue(answeredOn.get().startsWith("health-io"), answeredOn.get());
    }
}
