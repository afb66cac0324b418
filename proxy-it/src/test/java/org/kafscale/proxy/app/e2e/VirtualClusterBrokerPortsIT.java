package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * A virtual cluster's own listener in advertise mode ports, in front of three brokers: team-a's
 * clients bootstrap on its port and are told a port of team-a's own range for each broker
 * ({@code brokerPortBase} + id), so every connection they open stays in team-a, and records of
 * every partition, whichever broker leads it, land under team-a's prefix.
 */
class VirtualClusterBrokerPortsIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    private static final String TOPIC = "orders";

    @TempDir
    static Path dir;
    private static RunningProxy proxy;
    private static int teamAPort;
    private static int teamABase;

    @BeforeAll
    static void startProxy() throws Exception {
        teamAPort = FreePorts.next();
        teamABase = FreePorts.block(16);
        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                virtualClusters:
                  - name: team-a
                    listener: "127.0.0.1:%d"
                    brokerPortBase: %d
                    topicPrefix: "a."
                """.formatted(teamAPort, teamABase));
        proxy = RunningProxy.start(KAFKA.cluster(), "ports", Map.of(ProxyConfig.GATEWAY_FILE, gateway.toString()));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        KAFKA.cluster().createTopic("a." + TOPIC, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void eachBrokerIsAtAPortOfTheVirtualClustersOwnRange() throws Exception {
        try (Admin admin = Admin.create(client())) {
            Map<Integer, Integer> ports = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream()
                    .collect(Collectors.toMap(Node::id, Node::port));
            Map<Integer, Integer> expected = new HashMap<>();
            KAFKA.cluster().brokerIds().forEach(id -> expected.put(id, teamABase + id));
            assertEquals(expected, ports);
        }
    }

    @Test
    void recordsOfEveryPartitionRoundTripThroughTheVirtualClustersBrokerPorts() throws Exception {
        Map<Integer, List<String>> sent = RecordRoundTrip.produce(bootstrap(), TOPIC, 3, 0, 30, Map.of());

        Map<Integer, List<String>> read = RecordRoundTrip.consumeFromStart(bootstrap(), TOPIC, 3, 30);

        assertEquals(sent, read);
        assertTrue(KAFKA.cluster().admin().listTopics().names().get(10, TimeUnit.SECONDS).contains("a." + TOPIC));
    }

    private static String bootstrap() {
        return "127.0.0.1:" + teamAPort;
    }

    private static Properties client() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        return props;
    }
}
