package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * A broker that requires a client certificate and SCRAM, and ends every SASL session after
 * {@link #SESSION_LIFETIME} (KIP-368, {@code connections.max.reauth.ms}): the proxy presents its
 * certificate, and retires each channel before the broker would cut it, so a producer that never
 * retries sees no error over several lifetimes.
 */
@Tag(RunningProxy.TLS_TAG)
class BackendSessionLifetimeIT {
    private static final Duration SESSION_LIFETIME = Duration.ofSeconds(2);
    private static final String USER = "proxy";
    private static final String PASSWORD = "proxy-secret";
    private static final Path CERTIFICATES = tempDir();
    private static KafkaCluster cluster;
    private static TestCertificates.Identity proxyCertificate;

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @BeforeAll
    static void startBroker() {
        TestCertificates certificates = TestCertificates.create(CERTIFICATES);
        proxyCertificate = certificates.client("kafscale-proxy");
        cluster = KafkaCluster.start(1, Map.of(0, Map.of("connections.max.reauth.ms",
                String.valueOf(SESSION_LIFETIME.toMillis()))), BrokerSecurity.saslSsl(certificates)
                .requiringClientCertificates().withScramUser(USER, PASSWORD));
    }

    @AfterAll
    static void stopBroker() {
        if (cluster != null) {
            cluster.close();
        }
        TempDirs.deleteRecursively(CERTIFICATES);
    }

    @Test
    void aProducerThatNeverRetriesKeepsGoingOverSeveralSessionLifetimes() throws Exception {
        // Given: the proxy with its client certificate and SCRAM user
        cluster.createTopic("reauth", 1);
        try (RunningProxy proxy = RunningProxy.start(cluster, "single", settings(true));
             KafkaProducer<String, String> producer = new KafkaProducer<>(
                     RecordRoundTrip.noRetriesProducerProperties(proxy.bootstrap()))) {
            // When: it produces, one record at a time, for three of the broker's session lifetimes
            long end = System.nanoTime() + 3 * SESSION_LIFETIME.toNanos();
            int sent = 0;
            while (System.nanoTime() < end) {
                producer.send(new ProducerRecord<>("reauth", "k", "v" + sent)).get(10, TimeUnit.SECONDS);
                sent++;
            }

            // Then: every send succeeded (get() threw for none), and all records are in the log
            long logged = cluster.admin().listOffsets(Map.of(new org.apache.kafka.common.TopicPartition("reauth", 0),
                    org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get().values().iterator().next().offset();
            assertEquals(sent, logged);
        }
    }

    @Test
    void withoutItsClientCertificateTheProxyIsRefusedAndSaysWhy() {
        try (RunningProxy proxy = RunningProxy.start(cluster, "single", settings(false))) {
            logs.awaitLine(Duration.ofSeconds(10), "cannot authenticate to");
            List<String> lines = logs.events().stream().map(e -> e.getFormattedMessage())
                    .filter(m -> m.startsWith("cannot authenticate to")).toList();
            assertTrue(lines.get(0).contains(cluster.brokerAddress(0)) && lines.get(0).contains("certificate"),
                    lines.get(0));
            assertThrows(ExecutionException.class, () -> describeCluster(proxy));
        }
    }

    private static Map<String, String> settings(boolean withCertificate) {
        Map<String, String> settings = new HashMap<>();
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", cluster.security().certificates().caFile().toString());
        if (withCertificate) {
            settings.put("KAFSCALE_PROXY_BACKEND_TLS_CERT_FILE", proxyCertificate.certificateFile().toString());
            settings.put("KAFSCALE_PROXY_BACKEND_TLS_KEY_FILE", proxyCertificate.keyFile().toString());
        }
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "SCRAM-SHA-512");
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", USER);
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", PASSWORD);
        return settings;
    }


    private static int describeCluster(RunningProxy proxy) throws Exception {
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        try (Admin admin = Admin.create(config)) {
            return admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size();
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("backend-reauth-certs");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
