package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The backend TLS files are read again when they change, as a rotated Kubernetes secret changes
 * them: the next broker channel presents the new client certificate and trusts the new CA bundle,
 * while channels already open carry on with what they negotiated. Real SSL brokers that require
 * client certificates, certificates made by the test.
 */
@Tag(RunningProxy.TLS_TAG)
class BackendTlsReloadIT {
    private static final Path DIR = tempDir();
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(4);
    private static final String RELOADED = "Backend TLS material reloaded";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withSecurity(1, () -> BrokerSecurity
            .ssl(TestCertificates.create(DIR.resolve("brokers"))).requiringClientCertificates());

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    /** A CA the brokers do not know. */
    private static final TestCertificates STRANGER = TestCertificates.create(DIR.resolve("stranger"));

    @AfterAll
    static void deleteFiles() {
        TempDirs.deleteRecursively(DIR);
    }

    @Test
    void aRenewedClientCertificateIsPresentedByTheNextBrokerChannel() throws Exception {
        // Given: the proxy's client certificate is one the brokers do not trust
        Secret secret = Secret.at(DIR.resolve("renewed-client"), brokers().caFile(),
                STRANGER.client("kafscale-proxy"));
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", secret.settings())) {
            assertThrows(Exception.class, () -> describeCluster(proxy), "no broker lets the proxy in");

            // When: the secret is renewed with a certificate of the brokers' CA
            secret.replaceClientCertificate(brokers().client("kafscale-proxy"));

            // Then: the next broker channels present it, and the proxy serves
            Eventually.await(DEADLINE, "a broker channel with the renewed certificate", () -> {
                try {
                    return describeCluster(proxy) == 1;
                } catch (Exception notYet) {
                    return false;
                }
            });
            logs.awaitLine(DEADLINE, RELOADED);
            String topic = "renewed-client";
            KAFKA.cluster().createTopic(topic, 1);
            assertEquals(2, RecordRoundTrip.produce(proxy.bootstrap(), topic, 1, 2).get(0).size());
        }
    }

    @Test
    void openBrokerChannelsCarryOnWhenTheCaBundleChangesAndNewOnesUseIt() throws Exception {
        // Given: a producer whose records go through the proxy's broker channel
        String topic = "rotated-ca";
        KAFKA.cluster().createTopic(topic, 1);
        Secret secret = Secret.at(DIR.resolve("rotated-ca"), brokers().caFile(), brokers().client("kafscale-proxy"));
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", secret.settings());
             KafkaProducer<String, String> open = new KafkaProducer<>(producer(proxy))) {
            open.send(new ProducerRecord<>(topic, "before")).get();

            // When: the CA bundle is replaced by one that does not sign the brokers
            secret.replaceCa(STRANGER.caFile());

            // Then: a new client's broker channel uses the new bundle, and fails
            Eventually.await(DEADLINE, "a new client refused by the new CA bundle", () -> !freshProducerSends(proxy, topic));
            // And: the channel opened before carries on
            open.send(new ProducerRecord<>(topic, "during")).get(CLIENT_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);

            // When: the right bundle is back, Then: new clients get through again
            secret.replaceCa(brokers().caFile());
            Eventually.await(DEADLINE, "a new client through the restored CA bundle",
                    () -> freshProducerSends(proxy, topic));
            assertTrue(logs.events().stream().anyMatch(e -> e.getFormattedMessage().contains(RELOADED)),
                    "the reload is logged");
        }
    }

    /** Whether a new client connection (so new broker channels) gets a record to the broker. */
    private static boolean freshProducerSends(RunningProxy proxy, String topic) {
        try (KafkaProducer<String, String> fresh = new KafkaProducer<>(producer(proxy))) {
            fresh.send(new ProducerRecord<>(topic, "fresh")).get(CLIENT_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception refused) {
            return false;
        }
    }

    private static TestCertificates brokers() {
        return KAFKA.cluster().security().certificates();
    }

    /** A plaintext producer of the proxy that gives up within the client timeout, not idempotent (no producer id to fetch). */
    private static Properties producer(RunningProxy proxy) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, org.apache.kafka.common.serialization.StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.StringSerializer.class);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return props;
    }

    /** The nodes a plaintext admin client sees through the proxy. */
    private static int describeCluster(RunningProxy proxy) throws Exception {
        return proxy.describeClusterNodes(CLIENT_TIMEOUT);
    }

    /** The proxy's backend TLS files, as a mounted secret: copies the test replaces in place. */
    private record Secret(Path ca, Path cert, Path key) {
        static Secret at(Path directory, Path caFile, TestCertificates.Identity client) throws IOException {
            Files.createDirectories(directory);
            Secret secret = new Secret(directory.resolve("ca.crt"), directory.resolve("tls.crt"),
                    directory.resolve("tls.key"));
            Files.copy(caFile, secret.ca, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(client.certificateFile(), secret.cert, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(client.keyFile(), secret.key, StandardCopyOption.REPLACE_EXISTING);
            return secret;
        }

        Map<String, String> settings() {
            Map<String, String> settings = new HashMap<>();
            settings.put(ProxyConfig.BACKEND_TLS_ENABLED, "true");
            settings.put(ProxyConfig.BACKEND_TLS_CA_FILE, ca.toString());
            settings.put(ProxyConfig.BACKEND_TLS_CERT_FILE, cert.toString());
            settings.put(ProxyConfig.BACKEND_TLS_KEY_FILE, key.toString());
            settings.put(ProxyConfig.BACKEND_TLS_RELOAD_INTERVAL_MS, "200");
            return settings;
        }

        /** The key first, then the certificate, as a secret update may land them one after the other. */
        void replaceClientCertificate(TestCertificates.Identity client) throws IOException {
            replace(client.keyFile(), key);
            replace(client.certificateFile(), cert);
        }

        void replaceCa(Path caFile) throws IOException {
            replace(caFile, ca);
        }

        private static void replace(Path from, Path to) throws IOException {
            Path next = to.resolveSibling(to.getFileName() + ".next");
            Files.copy(from, next, StandardCopyOption.REPLACE_EXISTING);
            Files.move(next, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("backend-tls-reload");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
