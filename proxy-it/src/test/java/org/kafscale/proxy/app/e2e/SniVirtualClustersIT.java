package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
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
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.HostsFile;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * Two virtual clusters placed by TLS server name on ONE TLS port in front of a 3-broker cluster:
 * team-a's names are under {@code team-a.<domain>} and team-b's under {@code team-b.<domain>}
 * ({@code sniHostSuffix}), beside the shared {@code bootstrap.<domain>} and
 * {@code broker-$(nodeId).<domain>}. The clients do not authenticate: the name they connect by
 * places them. The names are mapped to 127.0.0.1 in /etc/hosts for the test (as in
 * {@link SniRoutingIT}), so the real clients resolve them and verify the proxy's certificate
 * against them.
 */
class SniVirtualClustersIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String DOMAIN = "sni-vc-it.kafscale.test";
    private static final String BOOTSTRAP_HOST = "bootstrap." + DOMAIN;
    private static final String BROKER_PATTERN = "broker-$(nodeId)." + DOMAIN;
    private static final Map<String, String> PREFIXES = Map.of("team-a", "a.", "team-b", "b.");
    private static final String TOPIC = "orders";
    private static final String KCAT_TOPIC = "kcat-orders";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @TempDir
    static Path dir;
    private static TestCertificates ca;
    private static HostsFile hosts;
    private static RunningProxy proxy;

    @BeforeAll
    static void namesCertificateTopicsAndProxy() throws Exception {
        assumeTrue(HostsFile.isWritable(), "/etc/hosts is not writable here: the test maps the SNI names in it");
        ca = TestCertificates.create(dir, "sni-vc-it");
        // A wildcard per level, as a load balancer's certificate for these names would have.
        TestCertificates.Identity server = ca.issue("sni-proxy", "CN=" + BOOTSTRAP_HOST,
                List.of(BOOTSTRAP_HOST, "*." + DOMAIN, "*.team-a." + DOMAIN, "*.team-b." + DOMAIN), List.of(), true);
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        List<String> names = new ArrayList<>(List.of(BOOTSTRAP_HOST));
        for (String tenant : List.of("team-a", "team-b")) {
            names.add(bootstrapOf(tenant));
            brokers.forEach(id -> names.add(brokerHost(tenant, id)));
        }
        hosts = HostsFile.mapToLoopback(names);
        // Each tenant's topics in the real cluster, a partition led by each broker, so every broker
        // name of each tenant is used; team-b has one topic more.
        Map<Integer, Integer> spread = Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2));
        KAFKA.cluster().createTopic("a." + TOPIC, spread);
        KAFKA.cluster().createTopic("b." + TOPIC, spread);
        KAFKA.cluster().createTopic("b." + KCAT_TOPIC, spread);

        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                virtualClusters:
                  - name: team-a
                    sniHostSuffix: team-a.%1$s
                    topicPrefix: "a."
                    groupPrefix: "a."
                  - name: team-b
                    sniHostSuffix: team-b.%1$s
                    topicPrefix: "b."
                    groupPrefix: "b."
                """.formatted(DOMAIN));
        Map<String, String> env = SniSettings.proxy(server, BOOTSTRAP_HOST, BROKER_PATTERN);
        env.put(ProxyConfig.GATEWAY_FILE, gateway.toString());
        proxy = RunningProxy.start(KAFKA.cluster(), "sni", env);
        Eventually.await(DEADLINE, "/readyz turns 200", () -> proxy.healthStatus("/readyz") == 200);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (hosts != null) {
            hosts.close();
        }
    }

    private static String bootstrapOf(String tenant) {
        return "bootstrap." + tenant + "." + DOMAIN;
    }

    private static String brokerHost(String tenant, int id) {
        return "broker-" + id + "." + tenant + "." + DOMAIN;
    }

    private static String bootstrap(String tenant) {
        return bootstrapOf(tenant) + ":" + proxy.port();
    }

    private static Map<String, Object> tls() {
        return SniSettings.clientTls(ca);
    }

    private static Properties admin(String bootstrap) {
        Properties props = new Properties();
        props.putAll(tls());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return props;
    }

    @Test
    void eachTenantIsToldItsOwnNameForEveryBrokerOnTheOnePortAndSeesOnlyItsTopics() throws Exception {
        Map<String, Set<String>> topics = Map.of("team-a", Set.of(TOPIC), "team-b", Set.of(TOPIC, KCAT_TOPIC));
        for (String tenant : List.of("team-a", "team-b")) {
            try (Admin admin = Admin.create(admin(bootstrap(tenant)))) {
                Map<Integer, String> advertised = new TreeMap<>();
                for (Node node : admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
                    advertised.put(node.id(), node.host() + ":" + node.port());
                }
                Map<Integer, String> expected = new TreeMap<>();
                KAFKA.cluster().brokerIds().forEach(id -> expected.put(id, brokerHost(tenant, id) + ":" + proxy.port()));
                assertEquals(expected, advertised, tenant);
                assertEquals(VirtualCluster.derivedClusterId(tenant),
                        admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
                assertEquals(topics.get(tenant), admin.listTopics().names().get(30, TimeUnit.SECONDS), tenant);
            }
        }
    }

    @Test
    void javaClientsOfEachTenantProduceAndConsumeItsOwnOrdersThroughTheOnePort() throws Exception {
        // When each tenant produces to its "orders" through its own names, a different number each
        Map<String, Integer> counts = Map.of("team-a", 300, "team-b", 120);
        Map<String, Map<Integer, List<String>>> sent = new HashMap<>();
        for (String tenant : List.of("team-a", "team-b")) {
            sent.put(tenant, RecordRoundTrip.produce(bootstrap(tenant), TOPIC, 3, 0, counts.get(tenant), tls()));
        }

        // Then each reads back exactly its own records, without a group and as a consumer group
        // (its coordinator found under its own names too)
        for (String tenant : List.of("team-a", "team-b")) {
            Map<Integer, List<String>> received = RecordRoundTrip.consumeFromStart(bootstrap(tenant), TOPIC, 3,
                    counts.get(tenant), tls());
            RecordRoundTrip.assertExactlyOnceInOrder(sent.get(tenant), received);
            RecordRoundTrip.assertExactlyOnceInOrder(sent.get(tenant), RecordRoundTrip.consumeAsGroup(bootstrap(tenant),
                    TOPIC, "billing", counts.get(tenant), tls()));
        }
        // and the real cluster holds each tenant's records and group under its prefix only
        for (String tenant : List.of("team-a", "team-b")) {
            assertEquals((long) counts.get(tenant),
                    RecordRoundTrip.endOffsets(KAFKA.cluster().admin(), PREFIXES.get(tenant) + TOPIC, 3), tenant);
        }
        Set<String> realGroups = KAFKA.cluster().admin().listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .map(g -> g.groupId()).collect(Collectors.toSet());
        assertTrue(realGroups.containsAll(Set.of("a.billing", "b.billing")), realGroups.toString());
    }

    @Test
    void kcatThroughOneTenantsNamesReadsAndWritesOnlyItsTopics() {
        List<String> security = List.of("-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + ca.caFile(),
                "-X", "ssl.endpoint.identification.algorithm=https");
        List<String> produce = new ArrayList<>(List.of("-b", bootstrap("team-b"), "-t", KCAT_TOPIC, "-P"));
        produce.addAll(security);
        Kcat.Result produced = Kcat.run(DEADLINE, "b-1\nb-2\nb-3\n", produce);
        assertTrue(produced.succeeded(), produced::stderr);
        List<String> consume = new ArrayList<>(List.of("-b", bootstrap("team-b"), "-t", KCAT_TOPIC, "-C",
                "-o", "beginning", "-c", "3", "-e"));
        consume.addAll(security);
        Kcat.Result consumed = Kcat.run(DEADLINE.multipliedBy(2), null, consume);
        assertTrue(consumed.succeeded(), consumed::stderr);
        assertEquals(Set.of("b-1", "b-2", "b-3"), Set.copyOf(consumed.lines()), consumed::stderr);

        // Team a has no such topic: librdkafka is told so by the proxy, under team-a's names
        List<String> listA = new ArrayList<>(List.of("-b", bootstrap("team-a"), "-L"));
        listA.addAll(security);
        Kcat.Result listed = Kcat.run(DEADLINE, null, listA);
        assertTrue(listed.succeeded(), listed::stderr);
        assertTrue(listed.stdout().contains("topic \"" + TOPIC + "\""), listed.stdout());
        assertFalse(listed.stdout().contains(KCAT_TOPIC), listed.stdout());
        assertTrue(listed.stdout().contains(brokerHost("team-a", KAFKA.cluster().brokerIds().get(0))), listed.stdout());
    }

    @Test
    void anAnonymousClientByTheSharedNamesIsInNoVirtualCluster() {
        Properties props = admin(BOOTSTRAP_HOST + ":" + proxy.port());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        try (Admin admin = Admin.create(props)) {
            assertThrows(ExecutionException.class, () -> admin.listTopics().names().get(20, TimeUnit.SECONDS),
                    "an anonymous client by the shared names is placed by no principal");
        }
    }
}
