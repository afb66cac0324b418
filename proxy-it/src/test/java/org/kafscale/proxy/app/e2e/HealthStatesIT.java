package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;

/**
 * {@code /health} against real brokers and a real etcd: each degradation the proxy can be made to
 * show produces its state and reason while {@code /readyz} stays 200, and clears when its cause
 * does. (Draining, starting and not_ready come from readiness; HealthStatesTest shows them.)
 */
class HealthStatesIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "health";

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
