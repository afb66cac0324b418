package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The proxy behind a load balancer that sends PROXY protocol v2 headers ({@link ProxyHeaderRelay}:
 * every client reaches the proxy's socket from 127.0.0.1, and the header names who it is). The
 * header's address is the one the per-address connection cap counts and ACL host rules match; a
 * connection without a header, where one is required, is closed; the readiness probe still works.
 */
class ProxyProtocolIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String BEHIND = "203.0.113.7";
    private static final String OTHER = "203.0.113.8";
    private static final String GUARDED = "pp-orders";
    private static final String OPEN = "pp-open";
    private static final String ACLS = """
            acls:
              - {principal: "User:ANONYMOUS", resourceType: TOPIC, name: "*", operation: All, permission: ALLOW}
              - {principal: "User:ANONYMOUS", resourceType: GROUP, name: "*", operation: All, permission: ALLOW}
              # nobody behind 203.0.113.7 writes the orders
              - {principal: "User:ANONYMOUS", resourceType: TOPIC, name: "pp-orders", operation: Write, permission: DENY, host: "203.0.113.7"}
            """;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @TempDir
    static Path dir;
    private static Path acls;

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private final List<AutoCloseable> opened = new ArrayList<>();
    private RunningProxy proxy;
    private ProxyHeaderRelay behind;
    private ProxyHeaderRelay other;

    @BeforeAll
    static void topicsAndAcls() throws IOException {
        KAFKA.cluster().createTopic(GUARDED, 1);
        KAFKA.cluster().createTopic(OPEN, 1);
        acls = Files.writeString(dir.resolve("acls.yaml"), ACLS);
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (behind != null) {
            behind.close();
        }
        if (other != null) {
            other.close();
        }
    }

    @Test
    void aclHostRuleMatchesTheHeadersAddress() throws Exception {
        // Given a proxy that requires headers, behind two load balancers naming 203.0.113.7 and
        // 203.0.113.8, advertising the first (so a Java client stays behind it)
        startBehindRelays(Map.of(ProxyConfig.ACL_FILE, acls.toString()));

        // When a Java producer behind 203.0.113.7 writes a topic no rule guards, and the orders
        Map<Integer, List<String>> sent = RecordRoundTrip.produce(bootstrapBehind(), OPEN, 1, 3);
        ExecutionException denied = assertThrows(ExecutionException.class, () -> {
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProperties())) {
                producer.send(new ProducerRecord<>(GUARDED, "k", "v")).get();
            }
        });

        // Then the first is written, the orders are refused as the DENY for 203.0.113.7 says
        assertEquals(3, sent.values().stream().mapToInt(List::size).sum());
        assertInstanceOf(TopicAuthorizationException.class, denied.getCause());
        // And the same Produce from 203.0.113.8 is written, from 203.0.113.7 refused
        assertEquals(Errors.NONE.code(), produceOrder(other.port()));
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), produceOrder(behind.port()));
        // And the refusal's log line and the access log name the header's address
        logs.awaitLine(DEADLINE, "from /" + BEHIND + ":");
    }

    @Test
    void perAddressCapCountsTheHeadersAddress() throws Exception {
        // Given a proxy that takes 2 connections from one address, behind both load balancers
        startBehindRelays(Map.of(ProxyConfig.MAX_CONNECTIONS_PER_IP, "2"));

        // When two connections from 203.0.113.7 are served, and a third arrives
        RawKafkaConnection first = served(behind.port());
        RawKafkaConnection second = served(behind.port());
        RawKafkaConnection third = raw(behind.port());
        third.write(new ApiVersionsRequest.Builder().build((short) 3));

        // Then the third is closed as past the cap for 203.0.113.7, though every socket is 127.0.0.1's
        assertTrue(third.closedByProxy(), "the proxy did not close the third connection from " + BEHIND);
        Eventually.await(DEADLINE, "the per-address refusal counted",
                () -> proxy.metric("kafscale_proxy_client_connections_refused_total{limit=\"per_ip\"") == 1);
        logs.awaitLine(DEADLINE, "Refusing connection from client /" + BEHIND);
        // And a client from 203.0.113.8 is still served, and the first two still are
        served(other.port());
        apiVersions(first);
        apiVersions(second);
    }

    @Test
    void connectionWithoutAHeaderIsClosedWhereOneIsRequiredAndReadinessHolds() throws Exception {
        // Given a proxy that requires headers
        startBehindRelays(Map.of());

        // When a client connects to it directly, without a header, and sends a request
        RawKafkaConnection direct = raw(proxy.port());
        direct.write(new ApiVersionsRequest.Builder().build((short) 3));

        // Then the connection is closed, with one line and the refusal counted
        assertTrue(direct.closedByProxy(), "the proxy served a connection without a PROXY header");
        Eventually.await(DEADLINE, "the header refusal counted",
                () -> proxy.metric("kafscale_proxy_client_connections_refused_total{limit=\"proxy_header\"") == 1);
        logs.awaitLine(DEADLINE, "does not start with a PROXY protocol header");
        // And the readiness probe, which sends a LOCAL header, still proves the read path
        Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        served(behind.port());
    }

    @Test
    void tlsPassesThroughAfterTheHeaderAndTheProbeSendsItsLocalHeaderBeforeItsHandshake() throws Exception {
        // Given a TLS listener that requires headers
        TestCertificates ca = TestCertificates.create(dir.resolve("tls"), "proxy-protocol");
        TestCertificates.Identity leaf = ca.server("proxy");
        startBehindRelays(Map.of(ConfigKey.TLS_ENABLED.envName(), "true",
                ConfigKey.TLS_CERT_FILE.envName(), leaf.chainFile().toString(),
                ConfigKey.TLS_KEY_FILE.envName(), leaf.keyFile().toString()));

        // When a Java producer behind 203.0.113.7 writes over TLS, through the balancer that only adds the header
        Properties props = RecordRoundTrip.idempotentProducerProperties(bootstrapBehind());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        props.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.trustStoreFile().toString());
        props.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            producer.send(new ProducerRecord<>(OPEN, "k", "over tls")).get();
        }

        // Then it was written, the access line names the header's address over TLS, and the
        // probe (its LOCAL header first, then its handshake) proves the read path
        logs.awaitLine(DEADLINE, "client=/" + BEHIND);
        assertTrue(logs.events().stream().map(e -> e.getFormattedMessage())
                .anyMatch(line -> line.contains("client=/" + BEHIND) && line.contains("security=TLS")), logs.warnings());
        Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
    }

    /** The proxy on a free port requiring headers, advertised at the 203.0.113.7 relay's port, and both relays. */
    private void startBehindRelays(Map<String, String> extra) throws IOException {
        int proxyPort = FreePorts.next();
        behind = ProxyHeaderRelay.start(proxyPort, BEHIND);
        other = ProxyHeaderRelay.start(proxyPort, OTHER);
        Map<String, String> settings = new HashMap<>(extra);
        settings.put(ProxyConfig.ADDR, "127.0.0.1:" + proxyPort);
        settings.put(ProxyConfig.ADVERTISED_PORT, String.valueOf(behind.port()));
        settings.put(ProxyConfig.ACCEPT_PROXY_PROTOCOL, "required");
        proxy = RunningProxy.start(KAFKA.cluster(), "single", settings);
    }

    private String bootstrapBehind() {
        return "127.0.0.1:" + behind.port();
    }

    private Properties producerProperties() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapBehind());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) DEADLINE.toMillis());
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis());
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis() / 2);
        return props;
    }

    /** A raw Produce of one record to the orders through {@code port}; its partition's error code. */
    private short produceOrder(int port) throws IOException {
        try (RawKafkaConnection connection = new RawKafkaConnection(port)) {
            ProduceRequestData produce = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
            produce.topicData().add(new ProduceRequestData.TopicProduceData().setName(GUARDED).setPartitionData(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
                            Compression.NONE, new SimpleRecord("order".getBytes(StandardCharsets.UTF_8)))))));
            ProduceResponseData produced = connection.send(produce, (short) 11);
            return produced.responses().iterator().next().partitionResponses().get(0).errorCode();
        }
    }

    private RawKafkaConnection raw(int port) throws IOException {
        RawKafkaConnection connection = new RawKafkaConnection(port);
        opened.add(connection);
        return connection;
    }

    /** A connection through {@code port} whose ApiVersions was answered. */
    private RawKafkaConnection served(int port) throws IOException {
        RawKafkaConnection connection = raw(port);
        apiVersions(connection);
        return connection;
    }

    private static void apiVersions(RawKafkaConnection connection) throws IOException {
        ApiVersionsResponse versions = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
        assertEquals(Errors.NONE.code(), versions.data().errorCode());
    }
}
