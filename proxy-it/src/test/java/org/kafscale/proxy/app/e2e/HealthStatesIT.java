package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * {@code /health} against real brokers and a real etcd: each degradation the proxy can be made to
 * show produces its state and reason while {@code /readyz} stays 200, and clears when its cause
 * does; {@code starting} clears once the proxy can route, and {@code draining} holds while a drain
 * owes an answer. In every state {@code /health} answers the status {@code /readyz} does, as the
 * chart's readiness probe relies on. (not_ready: HealthStatesTest.)
 */
class HealthStatesIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "health";
    private static final int LONG_POLL_MS = 4000;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(3);

    private static List<Integer> brokers;

    @BeforeAll
    static void createTopic() {
        brokers = BACKENDS.cluster().brokerIds();
        // Led by the first broker, so the read probe never needs the one a test makes unreachable.
        BACKENDS.cluster().createTopic(TOPIC, Map.of(0, brokers.get(0)));
    }

    @BeforeEach
    void freshKeyspace() {
        BACKENDS.kafscale().deleteAll();
    }

    @Test
    void aBrokerThatCannotBeReachedDegradesTheProxyUntilItCanBe() throws Exception {
        // Given etcd lists the third broker at an address where nothing listens
        int unreachable = brokers.get(2);
        BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of(TOPIC),
                Map.of(unreachable, "127.0.0.1:" + FreePorts.next()));
        BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), List.of(TOPIC));
        try (RunningProxy proxy = RunningProxy.startOnEtcd(BACKENDS.cluster(), "brokers", BACKENDS.etcd().endpoint())) {
            // Then the proxy serves, degraded, naming the broker
            JsonNode degraded = awaitState(proxy, "degraded");
            assertEquals(List.of("broker_unreachable"), reasons(degraded));
            assertTrue(degraded.path("reasons").get(0).path("detail").asText().startsWith("broker " + unreachable + " at "),
                    degraded.toString());
            assertEquals(200, proxy.healthStatus("/readyz"));
            Eventually.await(DEADLINE, "the state's gauge", () -> proxy.metric(
                    "kafscale_proxy_health_state{state=\"degraded\"") == 1);

            // When etcd lists it at its real address
            BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of(TOPIC));

            // Then the reason clears
            JsonNode ready = awaitState(proxy, "ready");
            assertEquals(List.of(), reasons(ready));
            assertEquals(0, proxy.metric("kafscale_proxy_health_state{state=\"degraded\""));
        }
    }

    @Test
    void etcdUnreadableWithinItsTtlDegradesTheProxyUntilItIsReadAgain() throws Exception {
        // Given a ready proxy on etcd, with a TTL longer than the test
        BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of(TOPIC));
        BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), List.of(TOPIC));
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "brokers", Map.of(ProxyConfig.BACKENDS, "",
                ProxyConfig.ETCD_ENDPOINTS, BACKENDS.etcd().endpoint(), ProxyConfig.ETCD_RESYNC_MS, "500",
                ProxyConfig.BACKEND_CACHE_TTL_SEC, "300"))) {
            awaitState(proxy, "ready");
            // (jetcd opens its watches only once etcd serves them; one not yet open would never break.)
            Eventually.await(DEADLINE, "etcd to serve the watches", () -> BACKENDS.etcd().watchers() >= 3);

            // When etcd stops
            BACKENDS.etcd().stop();
            try {
                // Then the proxy serves on its last read, degraded
                JsonNode degraded = awaitState(proxy, "degraded");
                assertEquals(List.of("etcd_unreadable"), reasons(degraded));
                assertEquals(200, proxy.healthStatus("/readyz"));
            } finally {
                // When etcd is back
                BACKENDS.etcd().start();
            }
            // Then the reason clears
            assertEquals(List.of(), reasons(awaitState(proxy, "ready")));
        }
    }

    @Test
    void aProxyStartingWithoutATopologyIsStartingUntilItCanRoute() throws Exception {
        // Given a proxy on an etcd that holds no KafScale keys yet
        try (RunningProxy proxy = RunningProxy.startOnEtcd(BACKENDS.cluster(), "brokers", BACKENDS.etcd().endpoint())) {
            // Then it is starting, out of service, and says why
            JsonNode starting = awaitState(proxy, "starting");
            assertEquals(1, starting.path("reasons").size(), starting.toString());
            assertTrue(List.of("not_routing", "no_backends").contains(reasons(starting).get(0)), starting.toString());
            assertSameStatusAsReadyz(proxy, 503);

            // When etcd lists the brokers
            BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of(TOPIC));
            BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), List.of(TOPIC));

            // Then starting clears
            assertEquals(List.of(), reasons(awaitState(proxy, "ready")));
            assertSameStatusAsReadyz(proxy, 200);
        }
    }

    @Test
    void aDrainOwingAnAnswerIsDrainingUntilTheProxyCloses() throws Exception {
        // Given a ready proxy with a long-poll Fetch of an empty partition in flight (no read probe to add its own)
        BACKENDS.cluster().createTopic("health-drain", 1);
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "single",
                Map.of(ProxyConfig.READY_PROBE_INTERVAL_MS, "600000"));
             RawKafkaConnection client = new RawKafkaConnection(proxy.port())) {
            awaitState(proxy, "ready");
            RequestHeader poll = PendingFetch.send(proxy, client, "health-drain", LONG_POLL_MS, DEADLINE);

            // When it drains
            CompletableFuture<Void> drain = CompletableFuture.runAsync(
                    () -> proxy.runtime().drainAndClose(DRAIN_TIMEOUT));

            // Then it is draining, out of service, while the answer is owed
            JsonNode draining = awaitState(proxy, "draining");
            assertEquals(List.of("draining"), reasons(draining));
            assertSameStatusAsReadyz(proxy, 503);
            assertTrue(!drain.isDone(), "the drain waits for the Fetch it owes");

            // And draining ends with the proxy: the answer arrives, then the health listener is gone
            client.read(poll);
            drain.get(DRAIN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThrows(UncheckedIOException.class, () -> proxy.health("/health"));
        }
    }

    @Test
    void anAuditSinkThatCannotWriteDegradesTheProxyUntilItCan(@TempDir Path dir) throws Exception {
        // Given an audit trail to a file whose path is a directory: every write fails
        Path file = Files.createDirectories(dir.resolve("audit.jsonl"));
        Map<String, String> settings = new HashMap<>(ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice"), """
                audit:
                  file: %s
                """.formatted(file)));
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "single", settings);
             Admin alice = Admin.create(ScramUsers.client(proxy.bootstrap(), "alice"))) {
            // When a login is audited
            alice.describeCluster().clusterId().get();

            // Then the proxy serves, degraded, naming the sink
            JsonNode degraded = awaitState(proxy, "degraded");
            assertEquals(List.of("audit_sink_down"), reasons(degraded));
            assertTrue(degraded.path("reasons").get(0).path("detail").asText().startsWith("audit sink file"),
                    degraded.toString());
            assertSameStatusAsReadyz(proxy, 200);

            // When the file can be written
            Files.delete(file);

            // Then the reason clears at the sink's next good write
            assertEquals(List.of(), reasons(awaitState(proxy, "ready")));
            assertTrue(Files.isRegularFile(file), "the sink writes its file again");
        }
    }

    @Test
    void aListenerCertificateNearItsExpiryDegradesTheProxyUntilItIsRenewed(@TempDir Path dir) throws Exception {
        // Given a listener certificate (and CA) valid for two days, under a three-day window
        TestCertificates.Identity expiring = TestCertificates.create(dir, "short").server();
        Path certFile = Files.copy(expiring.chainFile(), dir.resolve("tls.crt"));
        Path keyFile = Files.copy(expiring.keyFile(), dir.resolve("tls.key"));
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "brokers", Map.of(
                ProxyConfig.TLS_ENABLED, "true", ProxyConfig.TLS_CERT_FILE, certFile.toString(),
                ProxyConfig.TLS_KEY_FILE, keyFile.toString(), ProxyConfig.TLS_RELOAD_INTERVAL_MS, "200",
                ProxyConfig.HEALTH_CERT_EXPIRY_WARN_DAYS, "3"))) {
            // Then the proxy serves, degraded, saying when it expires
            JsonNode degraded = awaitState(proxy, "degraded");
            assertEquals(List.of("certificate_expiring"), reasons(degraded));
            assertTrue(degraded.path("reasons").get(0).path("detail").asText()
                    .startsWith("the certificate of the Kafka listener expires at "), degraded.toString());
            assertSameStatusAsReadyz(proxy, 200);

            // When it is renewed in place by one of a CA valid for a year
            TestCertificates.Identity renewed = TestCertificates.create(dir, "long", Duration.ofDays(365)).server();
            Files.copy(renewed.keyFile(), keyFile, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.chainFile(), certFile, StandardCopyOption.REPLACE_EXISTING);

            // Then the reason clears
            assertEquals(List.of(), reasons(awaitState(proxy, "ready")));
        }
    }

    @Test
    void theWarningWindowIsASetting(@TempDir Path dir) throws Exception {
        // Given the same two-day certificate under a one-day window
        TestCertificates.Identity server = TestCertificates.create(dir, "window").server();
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "brokers", Map.of(
                ProxyConfig.TLS_ENABLED, "true", ProxyConfig.TLS_CERT_FILE, server.chainFile().toString(),
                ProxyConfig.TLS_KEY_FILE, server.keyFile().toString(),
                ProxyConfig.HEALTH_CERT_EXPIRY_WARN_DAYS, "1"))) {
            // Then it is not a reason
            assertEquals(List.of(), reasons(awaitState(proxy, "ready")));
        }
    }

    /** {@code /health} and {@code /readyz} both answer {@code status}: the chart's readiness probe reads the first. */
    private static void assertSameStatusAsReadyz(RunningProxy proxy, int status) {
        assertEquals(status, proxy.healthStatus("/health"), "/health");
        assertEquals(status, proxy.healthStatus("/readyz"), "/readyz");
    }

    private static JsonNode awaitState(RunningProxy proxy, String state) {
        JsonNode[] seen = new JsonNode[1];
        try {
            Eventually.await(DEADLINE, "health state " + state, () -> {
                seen[0] = health(proxy);
                return seen[0].path("state").asText().equals(state);
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last /health: " + seen[0], e);
        }
        return seen[0];
    }

    private static JsonNode health(RunningProxy proxy) {
        try {
            return JSON.readTree(proxy.healthBody("/health"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> reasons(JsonNode health) {
        List<String> reasons = new ArrayList<>();
        health.path("reasons").forEach(r -> reasons.add(r.path("reason").asText()));
        return reasons;
    }
}
