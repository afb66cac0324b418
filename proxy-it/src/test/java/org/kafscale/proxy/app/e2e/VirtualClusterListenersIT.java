package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;

/**
 * Virtual clusters placed by the listener a client connects to, not by its principal: team-a and
 * team-b each get a port of their own on one proxy, and their clients do not authenticate. Each
 * tenant's clients are told its own port for every broker, see only its topics, and write only
 * into its prefix; the shared listener serves no one, since no principal is placed.
 */
class VirtualClusterListenersIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    private static final String TOPIC = "orders";

    @TempDir
    static Path dir;
    private static RunningProxy proxy;
    private static int teamAPort;
    private static int teamBPort;

    @BeforeAll
    static void startProxy() throws Exception {
        teamAPort = FreePorts.next();
        teamBPort = FreePorts.next();
        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                virtualClusters:
                  - name: team-a
                    listener: "127.0.0.1:%d"
                    topicPrefix: "a."
                    groupPrefix: "a."
                  - name: team-b
                    listener: "127.0.0.1:%d"
                    topicPrefix: "b."
                    groupPrefix: "b."
                """.formatted(teamAPort, teamBPort));
        proxy = RunningProxy.start(KAFKA.cluster(), "single", Map.of(ProxyConfig.GATEWAY_FILE, gateway.toString()));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        for (int port : List.of(teamAPort, teamBPort)) {
            try (Admin admin = Admin.create(client(port))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void eachListenerIsItsOwnClusterAndAdvertisesItsOwnPort() throws Exception {
        assertEquals(teamAPort, proxy.runtime().virtualClusterAddress("team-a").orElseThrow().getPort());
        for (Map.Entry<String, Integer> tenant : Map.of("team-a", teamAPort, "team-b", teamBPort).entrySet()) {
            try (Admin admin = Admin.create(client(tenant.getValue()))) {
                // Every broker is at the tenant's own port, so its clients never leave its listener
                Collection<Node> nodes = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                assertTrue(nodes.stream().allMatch(node -> node.port() == tenant.getValue()), nodes.toString());
                assertEquals(VirtualCluster.derivedClusterId(tenant.getKey()),
                        admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS));
                assertEquals(Set.of(TOPIC), admin.listTopics().names().get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void recordsProducedOnOneTenantsListenerLandInItsPrefixOnly() throws Exception {
        // When team a produces 10 records to its "orders" and team b 4 to its own, each through its port
        RecordRoundTrip.produce(bootstrap(teamAPort), TOPIC, 2, 0, 10, Map.of());
        RecordRoundTrip.produce(bootstrap(teamBPort), TOPIC, 2, 0, 4, Map.of());

        // Then each reads its own back as its group
        assertEquals(10, RecordRoundTrip.consumeAsGroup(bootstrap(teamAPort), TOPIC, "billing", 10).values().stream()
                .mapToInt(List::size).sum());
        assertEquals(4, RecordRoundTrip.consumeAsGroup(bootstrap(teamBPort), TOPIC, "billing", 4).values().stream()
                .mapToInt(List::size).sum());
        // and the real cluster holds exactly that many in each prefix, and each group under its prefix
        assertEquals(10, RecordRoundTrip.endOffsets(KAFKA.cluster().admin(), "a." + TOPIC, 2));
        assertEquals(4, RecordRoundTrip.endOffsets(KAFKA.cluster().admin(), "b." + TOPIC, 2));
        Set<String> realGroups = KAFKA.cluster().admin().listGroups().all().get(10, TimeUnit.SECONDS).stream()
                .map(g -> g.groupId()).collect(Collectors.toSet());
        assertTrue(realGroups.containsAll(Set.of("a.billing", "b.billing")), realGroups.toString());
    }

    @Test
    void kcatOnATenantsListenerReadsOnlyItsOwnRecords() {
        Kcat.Result produced = Kcat.run(Duration.ofSeconds(30), "b-1\nb-2\n",
                List.of("-b", bootstrap(teamBPort), "-t", "kcat-" + TOPIC, "-P"));
        assertTrue(produced.succeeded(), produced.stderr());
        Kcat.Result consumed = Kcat.run(Duration.ofSeconds(30), null,
                List.of("-b", bootstrap(teamBPort), "-t", "kcat-" + TOPIC, "-C", "-o", "beginning", "-e"));
        assertTrue(consumed.succeeded(), consumed.stderr());
        assertEquals(List.of("b-1", "b-2"), consumed.lines());
        assertTrue(KAFKA.cluster().admin().listTopics().names().toCompletionStage().toCompletableFuture().join()
                .contains("b.kcat-" + TOPIC));
    }

    @Test
    void theSharedListenerServesNoOneWhenNoPrincipalIsPlaced() {
        Properties props = client(proxy.port());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        try (Admin admin = Admin.create(props)) {
            assertThrows(ExecutionException.class, () -> admin.listTopics().names().get(20, TimeUnit.SECONDS),
                    "an anonymous client on the shared listener is in no virtual cluster");
        }
    }

    private static String bootstrap(int port) {
        return "127.0.0.1:" + port;
    }

    private static Properties client(int port) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(port));
        return props;
    }
}
