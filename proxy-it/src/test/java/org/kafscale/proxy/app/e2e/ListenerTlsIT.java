package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.testkit.ClientFamily;
import org.kafscale.proxy.testkit.ClientPrograms;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * TLS and mTLS on the Kafka listener, with real clients through the proxy to real brokers: Java
 * clients on the bootstrap port and on per-broker ports, kcat and confluent-kafka-python, client
 * certificates required and optional (the principal in the access log), a certificate rotated
 * while a producer keeps producing, and the one clear line for a client speaking the wrong
 * protocol for the port.
 */
@Tag(RunningProxy.TLS_TAG)
class ListenerTlsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final int RECORDS = 20;
    /** Maps {@code CN=app,OU=...} to {@code app}, as a broker with these rules would. */
    private static final String CN_RULE = "RULE:^CN=([^,]+).*$/$1/,DEFAULT";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(2);

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @TempDir
    static Path dir;

    private static TestCertificates ca;
    private static TestCertificates.Identity server;
    private static TestCertificates.Identity client;
    private static TestCertificates.Identity untrustedClient;

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.create(dir, "proxy-test");
        server = ca.server("proxy");
        client = ca.client("app", "CN=app,OU=payments,O=example");
        untrustedClient = TestCertificates.create(dir, "stranger").client("intruder", "CN=intruder");
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "ports"})
    void javaProducerAndGroupConsumerWorkOverTls(String mode) throws Exception {
        // Given: a proxy whose listener (and, in ports mode, every broker's port) speaks TLS
        String topic = "tls-" + mode + "-" + UUID.randomUUID();
        KAFKA.cluster().createTopic(topic, 4);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode, tlsOn(server))) {
            // When: a Java producer and a group consumer that trust the CA use it
            Properties ssl = trusting();
            produce(proxy.bootstrap(), ssl, topic, RECORDS);

            // Then: every record is read back through the proxy
            assertEquals(keys(RECORDS), consumeKeys(proxy.bootstrap(), ssl, topic, RECORDS));
            if (mode.equals("ports")) {
                // ...and in ports mode the clients' broker connections went to the per-broker ports, over TLS too
                String bootstrapPort = "port=/127.0.0.1:" + proxy.port() + " ";
                Eventually.await(DEADLINE, "a TLS connection closed on a broker's own port", () -> logs.events().stream()
                        .map(ILoggingEvent::getFormattedMessage)
                        .anyMatch(m -> m.startsWith("Connection closed") && m.contains("security=TLS")
                                && !m.contains(bootstrapPort)));
            }
        }
    }

    @Test
    void theProxyRunsOnTheTlsProviderTheRunAskedForAndSaysSoOnce() throws Exception {
        // Given: this run's provider (openssl unless -Dkafscale.it.tlsProvider says otherwise)
        String expected = RunningProxy.TLS_PROVIDER.equals("jdk") ? "TLS through JDK" : "TLS through OpenSSL (BoringSSL)";
        // When
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", tlsOn(server))) {
            // Then: one start-up line names it, and why
            List<String> lines = logs.events().stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.startsWith("TLS through ")).toList();
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith(expected + " (" + ConfigKey.TLS_PROVIDER.envName() + "="
                    + RunningProxy.TLS_PROVIDER), lines.get(0));
        }
    }

    @Test
    void requiredClientCertificateAdmitsOnlyClientsWithATrustedCertificate() throws Exception {
        // Given: a proxy that requires client certificates signed by the CA, mapping CN to the user name
        String topic = "mtls-required-" + UUID.randomUUID();
        KAFKA.cluster().createTopic(topic, 2);
        Map<String, String> settings = tlsOn(server);
        settings.put(ConfigKey.TLS_CLIENT_CA_FILE.envName(), ca.caFile().toString());
        settings.put(ConfigKey.TLS_PRINCIPAL_MAPPING_RULES.envName(), CN_RULE);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", settings)) {
            // When: a client with the CA's certificate produces and consumes
            produce(proxy.bootstrap(), presenting(client), topic, RECORDS);
            assertEquals(keys(RECORDS), consumeKeys(proxy.bootstrap(), presenting(client), topic, RECORDS));

            // Then: it is User:app in the access log; clients without a certificate or with a stranger's fail the handshake
            logs.awaitLine(DEADLINE, "principal=User:app ");
            assertThrows(SslAuthenticationException.class, () -> describeCluster(proxy.bootstrap(), trusting()));
            assertThrows(SslAuthenticationException.class,
                    () -> describeCluster(proxy.bootstrap(), presenting(untrustedClient)));
        }
    }

    @Test
    void optionalClientCertificateAdmitsClientsWithAndWithoutOneAndTellsThemApart() throws Exception {
        // Given: a proxy that asks for client certificates but does not require one
        Map<String, String> settings = tlsOn(server);
        settings.put(ConfigKey.TLS_CLIENT_CA_FILE.envName(), ca.caFile().toString());
        settings.put(ConfigKey.TLS_REQUIRE_CLIENT_CERT.envName(), "false");
        settings.put(ConfigKey.TLS_PRINCIPAL_MAPPING_RULES.envName(), CN_RULE);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", settings)) {
            // When: one client presents its certificate and another presents none
            describeCluster(proxy.bootstrap(), presenting(client));
            describeCluster(proxy.bootstrap(), trusting());

            // Then: both are served, one as User:app and the other as User:ANONYMOUS
            logs.awaitLine(DEADLINE, "principal=User:app ");
            logs.awaitLine(DEADLINE, "principal=User:ANONYMOUS security=TLS");
            // ...while a certificate the CA did not sign, when a client sends it anyway, fails the
            // handshake. Debian's librdkafka 2.0.2 sends it; a Java client, and the librdkafka 2.12
            // the tests build, send none the proxy's CA list does not name (and are then served
            // as anonymous, as the two clients above show), so this runs on the system's.
            Kcat.Result stranger = Kcat.run(Kcat.Library.SYSTEM, DEADLINE, null, List.of("-b", proxy.bootstrap(), "-L", "-m", "5",
                    "-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + ca.caFile(),
                    "-X", "ssl.certificate.location=" + untrustedClient.chainFile(),
                    "-X", "ssl.key.location=" + untrustedClient.keyFile()));
            assertFalse(stranger.succeeded(), stranger::stdout);
            logs.awaitLine(DEADLINE, "TLS handshake with client");
        }
    }

    @Test
    void readinessProbeReachesAListenerThatRequiresClientCertificatesOverTls() {
        // Given: a proxy that requires client certificates from the CA that also signed its own
        Map<String, String> settings = tlsOn(server);
        settings.put(ConfigKey.TLS_CLIENT_CA_FILE.envName(), ca.caFile().toString());
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", settings)) {
            // Then: its read-path probe gets through (over TLS, with the listener's certificate), so it is ready
            Eventually.await(DEADLINE, "/readyz answering 200", () -> proxy.healthStatus("/readyz") == 200);
            assertEquals(0, logs.events().stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains("plaintext (non-TLS) client") || m.contains("TLS handshake with client"))
                    .count(), logs.warnings());
        }
    }

    @Test
    void kcatProducesAndConsumesOverTls() throws Exception {
        // Given: a TLS proxy, and kcat told to use TLS with the CA
        String topic = "tls-kcat-" + UUID.randomUUID();
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "ports", tlsOn(server))) {
            List<String> ssl = List.of("-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + ca.caFile());
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                lines.add("k" + i + ":v" + i);
            }
            // When: kcat produces, then consumes from the beginning
            Kcat.Result produced = Kcat.run(DEADLINE, String.join("\n", lines) + "\n",
                    concat(List.of("-b", proxy.bootstrap(), "-t", topic, "-P", "-K:"), ssl));
            Kcat.Result consumed = Kcat.run(DEADLINE, null, concat(List.of("-b", proxy.bootstrap(), "-t", topic, "-C",
                    "-o", "beginning", "-c", String.valueOf(RECORDS), "-e"), ssl));

            // Then: it read what it wrote
            assertTrue(produced.succeeded(), produced::stderr);
            assertTrue(consumed.succeeded(), consumed::stderr);
            assertEquals(RECORDS, consumed.lines().size(), consumed::stderr);
        }
    }

    @Test
    void confluentKafkaPythonProducesAndConsumesOverTls() throws Exception {
        // Given: a TLS proxy in ports mode (librdkafka keys brokers by address)
        String topic = "tls-python-" + UUID.randomUUID();
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "ports", tlsOn(server))) {
            // When: confluent-kafka produces and consumes as a group over TLS
            ClientPrograms.Run run = ClientPrograms.produceThenConsume(ClientFamily.CONFLUENT_KAFKA_PYTHON,
                    proxy.bootstrap(), topic, RECORDS, 2, DEADLINE,
                    Map.of("security.protocol", "ssl", "ssl.ca.location", ca.caFile().toString()));

            // Then: it read every record
            assertTrue(run.readEverything(), () -> run + "\nstdout: " + run.stdout());
            assertEquals(RECORDS, run.records().size(), run::toString);
        }
    }

    @Test
    void certificateRotationUnderLoadLosesNothingAndNewConnectionsSeeTheNewCertificate() throws Exception {
        // Given: a TLS proxy serving copies of the server files, and a producer (acks=all) that keeps producing
        Path rotating = Files.createDirectories(dir.resolve("rotating"));
        TestCertificates.Identity served = new TestCertificates.Identity(
                Files.copy(server.certificateFile(), rotating.resolve("leaf.crt")),
                Files.copy(server.keyFile(), rotating.resolve("tls.key")),
                Files.copy(server.chainFile(), rotating.resolve("tls.crt")), server.keyStoreFile(), server.certificate(),
                server.privateKey());
        TestCertificates.Identity renewed = ca.server("proxy-renewed");
        String topic = "tls-rotation-" + UUID.randomUUID();
        KAFKA.cluster().createTopic(topic, 2);
        Map<String, String> settings = tlsOn(served);
        settings.put(ConfigKey.TLS_RELOAD_INTERVAL_MS.envName(), "200");
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", settings);
             KafkaProducer<String, String> producer = producer(proxy.bootstrap(), trusting())) {
            assertEquals("CN=proxy", presentedCertificate(proxy.port()).getSubjectX500Principal().getName());
            AtomicLong sent = new AtomicLong();
            AtomicLong acknowledged = new AtomicLong();
            AtomicReference<Exception> failure = new AtomicReference<>();
            AtomicBoolean keepGoing = new AtomicBoolean(true);
            Thread load = new Thread(() -> {
                while (keepGoing.get()) {
                    long i = sent.getAndIncrement();
                    producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i), (metadata, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            acknowledged.incrementAndGet();
                        }
                    });
                    if (i % 50 == 0) {
                        producer.flush();
                    }
                }
            }, "rotation-load");
            load.start();
            Eventually.await(DEADLINE, "records acknowledged before the rotation", () -> acknowledged.get() > 200);

            // When: the certificate files are replaced by a renewed certificate
            TestCertificates.replace(served, renewed);

            // Then: a new connection sees the renewed certificate...
            Eventually.await(DEADLINE, "the renewed certificate on a new connection", () ->
                    "CN=proxy-renewed".equals(presentedSubject(proxy.port())));
            long atRotation = acknowledged.get();
            Eventually.await(DEADLINE, "records acknowledged after the rotation", () -> acknowledged.get() > atRotation + 200);
            keepGoing.set(false);
            load.join(DEADLINE.toMillis());
            producer.flush();

            // ...and the producer's connection carried on: every record sent was acknowledged, none failed
            assertEquals(null, failure.get());
            assertEquals(sent.get(), acknowledged.get());
            long inKafka = KAFKA.cluster().admin().listOffsets(Map.of(
                    new org.apache.kafka.common.TopicPartition(topic, 0),
                    org.apache.kafka.clients.admin.OffsetSpec.latest(),
                    new org.apache.kafka.common.TopicPartition(topic, 1),
                    org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get().values().stream()
                    .mapToLong(o -> o.offset()).sum();
            assertEquals(sent.get(), inKafka);
        }
    }

    @Test
    void plaintextClientOnTheTlsPortGetsOneClearLineAndIsClosed() throws Exception {
        // Given: a TLS proxy
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", tlsOn(server));
             Socket socket = new Socket()) {
            // When: a client sends a plaintext Kafka request (ApiVersions v3) to the TLS port
            socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 5000);
            socket.setSoTimeout((int) DEADLINE.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(new byte[] {0, 0, 0, 10, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0});
            out.flush();

            // Then: the proxy closes the connection and says why, once, and routed nothing
            assertEquals(-1, readUntilClosed(socket.getInputStream()));
            String client = "127.0.0.1:" + socket.getLocalPort();
            logs.awaitLine(DEADLINE, "client=/" + client);
            assertEquals(1, linesAbout(client, "plaintext (non-TLS) client"));
            assertEquals(1, linesAbout(client, "security=tls(no handshake) requests=0"));
        }
    }

    @Test
    void aClientThatNeverFinishesItsHandshakeIsClosedAtTheHandshakeTimeout() throws Exception {
        // Given: a TLS proxy with a short handshake timeout
        Map<String, String> settings = tlsOn(server);
        settings.put(ConfigKey.TLS_HANDSHAKE_TIMEOUT_MS.envName(), "300");
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", settings);
             Socket socket = new Socket()) {
            // When: a client connects and sends nothing
            socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 5000);
            socket.setSoTimeout((int) DEADLINE.toMillis());

            // Then: the proxy closes it, saying the handshake did not finish
            assertEquals(-1, readUntilClosed(socket.getInputStream()));
            String client = "127.0.0.1:" + socket.getLocalPort();
            logs.awaitLine(DEADLINE, "client=/" + client);
            assertEquals(1, linesAbout(client, "did not finish within 300 ms"));
        }
    }

    @Test
    void tlsClientOnThePlaintextPortGetsOneClearLineAndIsClosed() throws Exception {
        // Given: a plaintext proxy
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", Map.of())) {
            // When: a TLS client connects to it
            SSLContext context = trustingContext();
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", proxy.port())) {
                socket.setSoTimeout((int) DEADLINE.toMillis());
                assertThrows(SSLException.class, socket::startHandshake);
                String client = "127.0.0.1:" + socket.getLocalPort();

                // Then: the proxy says a TLS client reached a plaintext port, once, and routed nothing
                logs.awaitLine(DEADLINE, "client=/" + client);
                assertEquals(1, linesAbout(client, "A TLS client"));
                assertEquals(1, linesAbout(client, "requests=0"));
            }
        }
    }

    // --- helpers

    private static Map<String, String> tlsOn(TestCertificates.Identity leaf) {
        Map<String, String> settings = new HashMap<>();
        settings.put(ConfigKey.TLS_ENABLED.envName(), "true");
        settings.put(ConfigKey.TLS_CERT_FILE.envName(), leaf.chainFile().toString());
        settings.put(ConfigKey.TLS_KEY_FILE.envName(), leaf.keyFile().toString());
        return settings;
    }

    private static Properties trusting() {
        Properties p = new Properties();
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.trustStoreFile().toString());
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        return p;
    }

    private static Properties presenting(TestCertificates.Identity leaf) {
        Properties p = trusting();
        p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, leaf.keyStoreFile().toString());
        p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        p.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
        return p;
    }

    private static KafkaProducer<String, String> producer(String bootstrap, Properties ssl) {
        Properties p = new Properties();
        p.putAll(ssl);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static void produce(String bootstrap, Properties ssl, String topic, int count) throws Exception {
        try (KafkaProducer<String, String> producer = producer(bootstrap, ssl)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private static Set<String> consumeKeys(String bootstrap, Properties ssl, String topic, int count) {
        Properties p = new Properties();
        p.putAll(ssl);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "group-" + topic);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Set<String> keys = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (keys.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    keys.add(record.key());
                }
            }
            consumer.commitSync();
        }
        return keys;
    }

    private static Set<String> keys(int count) {
        Set<String> keys = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            keys.add("k" + i);
        }
        return keys;
    }

    private static void describeCluster(String bootstrap, Properties ssl) throws Exception {
        Properties p = new Properties();
        p.putAll(ssl);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        try (Admin admin = Admin.create(p)) {
            admin.describeCluster().nodes().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static SSLContext trustingContext() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ca.trustStoreFile())) {
            trust.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    /** The certificate the proxy presents to a new connection. */
    private static X509Certificate presentedCertificate(int port) throws Exception {
        try (SSLSocket socket = (SSLSocket) trustingContext().getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    private static String presentedSubject(int port) {
        try {
            return presentedCertificate(port).getSubjectX500Principal().getName();
        } catch (Exception e) {
            throw new IllegalStateException("no TLS handshake with the proxy", e);
        }
    }

    private static int readUntilClosed(InputStream in) throws Exception {
        int b;
        while ((b = in.read()) >= 0) {
            // The proxy writes nothing a plaintext client could read as an answer; drain until the close.
        }
        return b;
    }

    private long linesAbout(String client, String fragment) {
        return logs.events().stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains(client) && m.contains(fragment)).count();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
