package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The proxy in front of three SASL_SSL brokers, itself speaking TLS and SASL to them (its own
 * identity) while its clients speak plaintext to it: the topology source (plain Kafka, no etcd),
 * the ApiVersions probe and every client's broker channels all authenticate. A wrong password or a
 * broker certificate that does not name the dialled host is an error the operator sees once and
 * clients see at once.
 */
@Tag(RunningProxy.TLS_TAG)
class BackendSecurityIT {
    private static final Path CERTIFICATES = tempDir();
    private static final String SCRAM_USER = "proxy-scram";
    private static final String SCRAM_PASSWORD = "scram-secret";
    private static final String PLAIN_USER = "proxy-plain";
    private static final String PLAIN_PASSWORD = "plain-secret";
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withSecurity(3, () -> BrokerSecurity
            .saslSsl(TestCertificates.create(CERTIFICATES))
            .withScramUser(SCRAM_USER, SCRAM_PASSWORD)
            .withPlainUser(PLAIN_USER, PLAIN_PASSWORD));

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @AfterAll
    static void deleteCertificates() {
        TempDirs.deleteRecursively(CERTIFICATES);
    }

    @ParameterizedTest(name = "advertise mode {0}, {1}")
    @CsvSource({"single, SCRAM-SHA-512", "single, PLAIN", "brokers, SCRAM-SHA-512", "brokers, PLAIN"})
    void plaintextClientsProduceAndGroupConsumeThroughTheProxyToSaslSslBrokers(String mode, String mechanism)
            throws Exception {
        // Given: partitions led by each of the three brokers, and a proxy that authenticates to them
        String topic = "secured-" + mode + "-" + mechanism.toLowerCase(java.util.Locale.ROOT);
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        KAFKA.cluster().createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        boolean scram = mechanism.startsWith("SCRAM");
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode, backendSecurity(mechanism,
                scram ? SCRAM_USER : PLAIN_USER, scram ? SCRAM_PASSWORD : PLAIN_PASSWORD, Map.of()))) {
            // When: a plaintext producer and consumer group use the proxy
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, 3, 600);
            Map<Integer, List<String>> received = RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), topic,
                    "secured-group-" + topic, 600);

            // Then: every record arrives once, in order, from all three brokers, and the proxy reports
            // ready (its read-path probe fetches those records back through its own listener)
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
            Eventually.await(Duration.ofSeconds(30), "/readyz to answer 200",
                    () -> proxy.healthStatus("/readyz") == 200);
        }
    }

    @Test
    void aWrongPasswordFailsClientsAtOnceAndIsLoggedOncePerBrokerWithItsCause() {
        // Given: a proxy whose backend password is wrong
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single",
                backendSecurity("SCRAM-SHA-512", SCRAM_USER, "not-the-password", Map.of()))) {
            // When: a client asks it something, while the proxy keeps retrying its topology reads
            assertThrows(ExecutionException.class, () -> describeCluster(proxy));
            logs.awaitLine(Duration.ofSeconds(10), "SASL_AUTHENTICATION_FAILED");

            // Then: the client got an error within its timeout (no hang), and the operator one line
            // per broker saying why, however often the proxy tried
            List<String> lines = authenticationLines();
            assertFalse(lines.isEmpty());
            for (String line : lines) {
                assertTrue(line.contains("SCRAM-SHA-512 authentication failed") && line.contains("localhost:"), line);
            }
            assertEquals(lines.size(), lines.stream().map(BackendSecurityIT::brokerAddress).distinct().count(),
                    "one line per broker: " + lines);
        }
    }

    @Test
    void aBrokerCertificateThatDoesNotNameTheDialledHostIsRefusedUnlessVerificationIsSwitchedOff() throws Exception {
        // Given: the brokers dialled as 127.0.0.2, a loopback address their certificate does not name
        String misnamed = KAFKA.cluster().bootstrapServers().replace("localhost", "127.0.0.2");
        Map<String, String> dialMisnamed = Map.of(ProxyConfig.BACKENDS, misnamed);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single",
                backendSecurity("SCRAM-SHA-512", SCRAM_USER, SCRAM_PASSWORD, dialMisnamed))) {
            // When: the proxy reads its topology from them, then a client asks
            logs.awaitLine(Duration.ofSeconds(10), "127.0.0.2");

            // Then: the TLS handshake fails naming the host, and clients get nothing from those brokers
            assertTrue(logs.events().stream().anyMatch(e -> e.getLevel() == Level.ERROR
                    && e.getFormattedMessage().contains("TLS handshake with")
                    && e.getFormattedMessage().contains("127.0.0.2")), logs.warnings());
            assertThrows(ExecutionException.class, () -> describeCluster(proxy));
        }
        // And: with hostname verification off (the chain still checked), the same address works
        Map<String, String> insecure = new HashMap<>(dialMisnamed);
        insecure.put("KAFSCALE_PROXY_BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY", "true");
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single",
                backendSecurity("SCRAM-SHA-512", SCRAM_USER, SCRAM_PASSWORD, insecure))) {
            assertEquals(1, describeCluster(proxy));
        }
    }

    /** The proxy's settings for TLS (trusting the test CA) and SASL as {@code user}, plus {@code extra}. */
    private static Map<String, String> backendSecurity(String mechanism, String user, String password,
                                                       Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>();
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", KAFKA.cluster().security().certificates().caFile().toString());
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", mechanism);
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", user);
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", password);
        settings.putAll(extra);
        return settings;
    }

    /** The nodes a plaintext admin client sees through the proxy. */
    private static int describeCluster(RunningProxy proxy) throws Exception {
        return proxy.describeClusterNodes(CLIENT_TIMEOUT);
    }

    private List<String> authenticationLines() {
        return logs.events().stream().map(e -> e.getFormattedMessage())
                .filter(m -> m.startsWith("cannot authenticate to")).toList();
    }

    private static String brokerAddress(String line) {
        int start = line.indexOf('(');
        return line.substring(start + 1, line.indexOf(')', start));
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("backend-security-certs");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
