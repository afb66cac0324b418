package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.HostsFile;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * Advertise mode sni: one TLS port serves the bootstrap and every broker of a 3-broker cluster,
 * each broker under a name of its own. The names are mapped to 127.0.0.1 in /etc/hosts for the
 * test (and removed after), so the real clients resolve them as they would a load balancer's
 * DNS names, and verify the proxy's wildcard certificate against them.
 */
class SniRoutingIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String DOMAIN = "sni-it.kafscale.test";
    private static final String BOOTSTRAP_HOST = "kafka." + DOMAIN;
    private static final String BROKER_PATTERN = "broker-$(nodeId)." + DOMAIN;
    private static final int RECORDS = 300;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @TempDir
    static Path dir;
    private static TestCertificates ca;
    private static TestCertificates.Identity server;
    private static HostsFile hosts;

    @BeforeAll
    static void namesAndCertificate() {
        assumeTrue(HostsFile.isWritable(), "/etc/hosts is not writable here: the test maps the SNI names in it");
        ca = TestCertificates.create(dir, "sni-it");
        // One wildcard certificate for the bootstrap and every broker, as a load balancer's would be.
        server = ca.issue("sni-proxy", "CN=" + BOOTSTRAP_HOST, List.of(BOOTSTRAP_HOST, "*." + DOMAIN), List.of(), true);
        List<String> names = new ArrayList<>(List.of(BOOTSTRAP_HOST));
        KAFKA.cluster().brokerIds().forEach(id -> names.add(brokerHost(id)));
        hosts = HostsFile.mapToLoopback(names);
    }

    @AfterAll
    static void unmapNames() {
        if (hosts != null) {
            hosts.close();
        }
    }

    private static String brokerHost(int id) {
        return BROKER_PATTERN.replace("$(nodeId)", String.valueOf(id));
    }

    private static RunningProxy proxy() {
        RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "sni",
                SniSettings.proxy(server, BOOTSTRAP_HOST, BROKER_PATTERN));
        // Ready means the proxy's own probe got in by the bootstrap name, over TLS.
        Eventually.await(DEADLINE, "/readyz turns 200", () -> proxy.healthStatus("/readyz") == 200);
        return proxy;
    }

    private static Map<String, Object> tls() {
        return SniSettings.clientTls(ca);
    }

    @Test
    void javaClientsAndKcatReadAndWriteEveryPartitionThroughOnePortByName() throws Exception {
        // Given: three partitions, one led by each broker
        String topic = "sni-spread";
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        KAFKA.cluster().createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        try (RunningProxy proxy = proxy()) {
            String bootstrap = BOOTSTRAP_HOST + ":" + proxy.port();
            Properties adminProps = new Properties();
            adminProps.putAll(tls());
            adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            // Then: every real id is advertised under its own name, all on the proxy's one port
            Map<Integer, String> advertised = new TreeMap<>();
            try (Admin admin = Admin.create(adminProps)) {
                for (Node node : admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
                    advertised.put(node.id(), node.host() + ":" + node.port());
                }
            }
            Map<Integer, String> expected = new TreeMap<>();
            brokers.forEach(id -> expected.put(id, brokerHost(id) + ":" + proxy.port()));
            assertEquals(expected, advertised);

            // When: a Java producer writes every partition, and a Java consumer and kcat read them back
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(bootstrap, topic, 3, 0, RECORDS, tls());
            Map<Integer, List<String>> received = RecordRoundTrip.consumeFromStart(bootstrap, topic, 3, RECORDS, tls());
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
            Kcat.Result consumed = Kcat.run(DEADLINE.multipliedBy(2), null, List.of("-b", bootstrap, "-t", topic,
                    "-C", "-o", "beginning", "-c", String.valueOf(RECORDS), "-e",
                    "-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + ca.caFile(),
                    "-X", "ssl.endpoint.identification.algorithm=https"));

            // Then: librdkafka, which keys brokers by name and port, read all three brokers' partitions,
            // verifying each broker's name against the certificate
            assertTrue(consumed.succeeded(), consumed::stderr);
            Set<String> values = sent.values().stream().flatMap(List::stream).collect(Collectors.toSet());
            assertEquals(RECORDS, consumed.lines().size(), consumed::stderr);
            assertEquals(values, new HashSet<>(consumed.lines()));
            // and the connections by a broker's name reached that broker (the access log says which)
            for (int id : brokers) {
                logs.awaitLine(DEADLINE, "broker=" + id + " ");
            }
        }
    }

    @Test
    void aNameThatMatchesNothingFailsTheHandshakeWithOneLine() throws Exception {
        try (RunningProxy proxy = proxy()) {
            // When: a TLS client asks the proxy's address for a name it does not serve
            SSLContext context = ca.clientContext(null);
            SSLException refused = assertThrows(SSLException.class, () -> {
                try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
                    SSLParameters parameters = socket.getSSLParameters();
                    parameters.setServerNames(List.of(new SNIHostName("unknown." + DOMAIN)));
                    socket.setSSLParameters(parameters);
                    socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 10_000);
                    socket.setSoTimeout(10_000);
                    socket.startHandshake();
                }
            });

            // Then: its TLS stack names the reason, the proxy logs why, and counts it
            assertTrue(refused.getMessage().contains("unrecognized_name"), refused.getMessage());
            logs.awaitLine(DEADLINE, "asked for 'unknown." + DOMAIN + "'");
            Eventually.await(DEADLINE, "the refusal is counted",
                    () -> proxy.metric("kafscale_proxy_client_connections_refused_total{limit=\"sni\"") == 1.0);
        }
    }
}
