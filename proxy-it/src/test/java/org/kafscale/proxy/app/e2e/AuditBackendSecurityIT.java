package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The audit topic on brokers that require TLS and SCRAM: the proxy's own producer writes it with
 * the proxy's own backend settings (KAFSCALE_PROXY_BACKEND_TLS_*, _SASL_*), and a gateway file with
 * only an audit section needs no authentication on the proxy's listener.
 */
class AuditBackendSecurityIT {
    private static final Path CERTIFICATES = tempDir();
    private static final String USER = "proxy-scram";
    private static final String PASSWORD = "proxy-scram-secret";
    private static final String TOPIC = "_audit_secured";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withSecurity(1, () -> BrokerSecurity
            .saslSsl(TestCertificates.create(CERTIFICATES)).withScramUser(USER, PASSWORD));

    @AfterAll
    static void deleteCertificates() {
        TempDirs.deleteRecursively(CERTIFICATES);
    }

    @Test
    void theAuditTopicIsWrittenWithTheProxysOwnTlsAndScram() throws Exception {
        // Given
        KAFKA.cluster().createTopic(TOPIC, 1);
        Path gateway = Files.writeString(CERTIFICATES.resolve("gateway.yaml"), "audit:\n  topic: " + TOPIC + "\n");
        Map<String, String> settings = new HashMap<>();
        settings.put(ProxyConfig.GATEWAY_FILE, gateway.toString());
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", KAFKA.cluster().security().certificates().caFile().toString());
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "SCRAM-SHA-512");
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", USER);
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", PASSWORD);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", settings);
             Admin anonymous = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap()))) {
            // When: an anonymous client (no SASL on the listener) creates a topic
            anonymous.createTopics(List.of(new NewTopic("secured-orders", 1, (short) 1))).all().get();

            // Then: the event is in the audit topic, read with the broker's own security
            Eventually.await(Duration.ofSeconds(30), "the CreateTopics event in the audit topic", () -> events()
                    .stream().anyMatch(e -> e.path("api").asText().equals("CreateTopics")
                            && e.path("principal").asText().equals("User:ANONYMOUS")
                            && e.path("outcome").asText().equals("succeeded")
                            && e.path("resources").toString().contains("secured-orders")));
            assertTrue(proxy.metric("kafscale_proxy_audit_events_written_total{sink=\"topic\"") >= 1);
        }
    }

    private static List<JsonNode> events() {
        Map<String, Object> client = new HashMap<>(KAFKA.cluster().security().clientProperties("SCRAM-SHA-512", USER,
                PASSWORD));
        client.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers());
        return AuditTopic.events(client, TOPIC);
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("audit-backend-certs");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
