package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.quota.QuotaLimits;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.TenantNames;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

class GatewayFileTest {
    private static VirtualClusters parse(String yaml) {
        return gateway(yaml).virtualClusters();
    }

    private static Gateway gateway(String yaml) {
        return GatewayFile.parse("gateway.yaml", yaml.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String yaml) {
        return assertThrows(ConfigException.class, () -> parse(yaml)).getMessage();
    }

    @Test
    void aVirtualClusterGetsItsPrefixesFromItsNameAndItsIdDerivedUnlessSet() {
        VirtualClusters clusters = parse("""
                virtualClusters:
                  - name: team-a
                    principals: [User:alice, "User:CN=svc,O=acme"]
                  - name: team-b
                    principals: [User:bob]
                    clusterId: team-b-id
                    topicPrefix: tb-
                    groupPrefix: gb-
                """);
        VirtualCluster a = clusters.of(new KafkaPrincipal("User", "CN=svc,O=acme")).orElseThrow();
        assertEquals("team-a", a.name());
        assertEquals(TenantNames.prefixed("team-a."), a.names());
        assertEquals(VirtualCluster.derivedClusterId("team-a"), a.clusterId());
        VirtualCluster b = clusters.of(new KafkaPrincipal("User", "bob")).orElseThrow();
        assertEquals(new TenantNames("tb-", "gb-", "team-b."), b.names());
        assertEquals("team-b-id", b.clusterId());
    }

    @Test
    void eachProblemNamesTheSettingTheFileAndThePath() {
        String missingName = error("virtualClusters:\n  - principals: [User:a]\n");
        assertTrue(missingName.startsWith("KAFSCALE_PROXY_GATEWAY_FILE (gateway.yaml) is invalid at virtualClusters[0].name"),
                missingName);
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: [User:a]\n  - name: b\n    principals: [User:b]\n"
                + "    topicPrefix: 'x/y'\n").contains("virtualClusters[1]: topicPrefix 'x/y'"));
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: [alice]\n")
                .contains("virtualClusters[0].principals[0]: 'alice' is not a principal"));
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: [User:a]\n    topicPrefx: a.\n")
                .contains("virtualClusters[0].topicPrefx: unknown key"));
        assertTrue(error("virtualClusters:\n  - name: a\n    sniHostSuffix: 7\n")
                .contains("virtualClusters[0].sniHostSuffix: expected a non-empty string"));
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: [User:a]\n    brokerPortBase: 9300\n")
                .contains("virtualClusters[0].brokerPortBase: needs a listener of its own"));
        assertTrue(error("virtualClusters:\n  - name: a\n    listener: ':9200'\n    brokerPortBase: 70000\n")
                .contains("virtualClusters[0].brokerPortBase: expected a port from 1 to 65535"));
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: [User:a]\n    aclFile: ''\n")
                .contains("virtualClusters[0].aclFile: expected a non-empty string"));
        assertTrue(error("virtualClusters: []\n").contains("at least one entry"));
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: [User:a]\n  - name: b\n    principals: [User:a]\n")
                .contains("User:a is in two virtual clusters, 'a' and 'b'"));
        assertTrue(error("virtualClusters:\n  - name: a\n    principals: ['User:*']\n").contains("wildcard"));
    }

    @Test
    void virtualClustersNeedClientsThatAuthenticate(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"),
                "virtualClusters:\n  - name: a\n    principals: [User:alice]\n");
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.GATEWAY_FILE, file.toString());
        ConfigException anonymous = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(anonymous.getMessage().startsWith(ProxyConfig.GATEWAY_FILE + " is set, but clients do not "
                + "authenticate"), anonymous.getMessage());
        Path users = Files.writeString(dir.resolve("users"), "alice SCRAM-SHA-512 "
                + org.apache.kafka.common.security.scram.internals.ScramCredentialUtils.credentialToString(
                        new org.apache.kafka.common.security.scram.internals.ScramFormatter(
                                org.apache.kafka.common.security.scram.internals.ScramMechanism.SCRAM_SHA_512)
                                .generateCredential("secret", 4096)) + "\n");
        env.put("KAFSCALE_PROXY_SASL_MECHANISMS", "PLAIN");
        env.put("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", users.toString());
        assertEquals(1, ProxyConfig.from(env).virtualClusters().all().size());
        env.remove(ProxyConfig.GATEWAY_FILE);
        assertTrue(ProxyConfig.from(env).virtualClusters().isEmpty());
    }

    @Test
    void aVirtualClusterMayHaveAListenerOfItsOwnAndThenNeedsNoPrincipals() {
        Gateway gateway = gateway("""
                virtualClusters:
                  - name: team-a
                    listener: "127.0.0.1:19192"
                  - name: team-b
                    principals: [User:bob]
                    listener: ":19193"
                """);
        assertEquals(Map.of("team-a", new HostPort("127.0.0.1", 19192), "team-b", new HostPort("", 19193)),
                gateway.listeners());
        assertTrue(gateway.virtualClusters().named("team-a").orElseThrow().principals().isEmpty());
        assertTrue(gateway.placesEveryClientByListener());

        String head = "virtualClusters:\n  - name: a\n";
        assertTrue(error(head + "    listener: 'localhost'\n")
                .contains("virtualClusters[0].listener: 'localhost' is not host:port with a port from 1 to 65535"));
        assertTrue(error(head + "    listener: ':0'\n").contains("virtualClusters[0].listener: ':0' is not host:port"));
        assertTrue(error(head + "    listener: ':9300'\n  - name: b\n    listener: ':9300'\n")
                .contains("virtualClusters[1].listener: :9300 is the listener of virtual cluster 'a' already"));
        assertTrue(error(head + "    principals: [User:a]\n    credentialsFile: users\n")
                .contains("virtualClusters[0].credentialsFile: needs a listener of its own"));
        assertTrue(error(head + "    topicPrefix: a.\n").contains("virtualClusters[0].principals: expected a list of at "
                + "least one principal (User:alice), or a listener or an sniHostSuffix of its own"));
    }

    @Test
    void aVirtualClusterMayBePlacedByTlsServerNameAndThenNeedsNoPrincipals() {
        Gateway gateway = gateway("""
                virtualClusters:
                  - name: team-a
                    sniHostSuffix: team-a.kafka.example.com
                  - name: team-b
                    principals: [User:bob]
                    sniHostSuffix: " team-b.kafka.example.com "
                """);
        assertEquals(Map.of("team-a", "team-a.kafka.example.com", "team-b", "team-b.kafka.example.com"),
                gateway.sniHostSuffixes());
        assertTrue(gateway.virtualClusters().named("team-a").orElseThrow().principals().isEmpty());
        assertTrue(gateway.placesEveryClientByListener());
        assertFalse(gateway("virtualClusters:\n  - name: a\n    sniHostSuffix: a.example.com\n  - name: b\n"
                + "    principals: [User:b]\n").placesEveryClientByListener());
    }

    @Test
    void aListenerOfItsOwnLetsClientsInWithoutAuthenticationAndNeedsBrokerPortsOfItsOwnInModePorts(@TempDir Path dir)
            throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"),
                "virtualClusters:\n  - name: a\n    listener: ':19192'\n");
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.GATEWAY_FILE, file.toString());
        assertEquals(new HostPort("", 19192), ProxyConfig.from(env).gateway().listeners().get("a"));
        Files.writeString(file, "virtualClusters:\n  - name: a\n    listener: ':19192'\n    credentialsFile: users\n");
        ConfigException noSasl = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(noSasl.getMessage().contains("virtual cluster 'a' has a credentials file, which needs "
                + "KAFSCALE_PROXY_SASL_MECHANISMS"), noSasl.getMessage());

        env.put(ProxyConfig.ADVERTISE_MODE, "ports");
        env.put(ProxyConfig.BROKER_PORT_BASE, "19300");
        env.put(ProxyConfig.BROKER_PORT_COUNT, "16");
        env.put(ProxyConfig.ADDR, ":19092");
        Files.writeString(file, "virtualClusters:\n  - name: a\n    listener: ':19192'\n");
        ConfigException noBase = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(noBase.getMessage().contains("virtual cluster 'a' has a listener of its own, which "
                + "KAFSCALE_PROXY_ADVERTISE_MODE=ports needs a brokerPortBase for"), noBase.getMessage());
        Files.writeString(file, "virtualClusters:\n  - name: a\n    listener: ':19192'\n    brokerPortBase: 19310\n");
        ConfigException overlap = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(overlap.getMessage().contains("the broker ports 19310-19325 of the brokerPortBase of virtual "
                + "cluster 'a' overlap 19300-19315 of KAFSCALE_PROXY_BROKER_PORT_BASE"), overlap.getMessage());
        Files.writeString(file, "virtualClusters:\n  - name: a\n    listener: ':19192'\n    brokerPortBase: 19190\n");
        ConfigException ownPort = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(ownPort.getMessage().contains("include the port 19192 of the listener of virtual cluster 'a'"),
                ownPort.getMessage());
        Files.writeString(file, "virtualClusters:\n  - name: a\n    listener: ':19192'\n    brokerPortBase: 19400\n");
        assertEquals("19400-19415", ProxyConfig.from(env).brokerPortsOf("a").toString());

        env.put(ProxyConfig.ADVERTISE_MODE, "single");
        ConfigException single = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(single.getMessage().contains("virtual cluster 'a' has a brokerPortBase, which only "
                + "KAFSCALE_PROXY_ADVERTISE_MODE=ports uses"), single.getMessage());
    }

    @Test
    void quotasAreReadPerVirtualClusterWithEachNamedPrincipalInheritingWhatItDoesNotSet() {
        Gateway gateway = gateway("""
                virtualClusters:
                  - name: team-a
                    principals: [User:alice, User:dave]
                    quotas:
                      produceBytesPerSecond: 10000000
                      perPrincipal:
                        produceBytesPerSecond: 1000000
                        fetchBytesPerSecond: 2000000
                        requestPercentage: 12.5
                      principals:
                        "User:dave":
                          produceBytesPerSecond: 4000000
                  - name: team-b
                    principals: [User:bob]
                """);
        TenantQuotas a = gateway.quotas().get("team-a");
        assertEquals(new QuotaLimits(10_000_000, 0), a.cluster());
        assertEquals(new QuotaLimits(1_000_000, 2_000_000, 12.5), a.of(new KafkaPrincipal("User", "alice")));
        assertEquals(new QuotaLimits(4_000_000, 2_000_000, 12.5), a.of(new KafkaPrincipal("User", "dave")));
        assertEquals(Map.of("team-a", a), gateway.quotas(), "team-b has no quotas");
    }

    @Test
    void eachQuotaProblemNamesItsPath() {
        String head = "virtualClusters:\n  - name: a\n    principals: [User:a]\n    quotas:\n";
        assertTrue(error(head + "      produceBytesPerSecond: -5\n")
                .contains("virtualClusters[0].quotas.produceBytesPerSecond: expected a positive whole number"));
        assertTrue(error(head + "      fetchBytesPerSecond: 1.5\n")
                .contains("virtualClusters[0].quotas.fetchBytesPerSecond: expected a positive whole number"));
        assertTrue(error(head + "      produceBytesPerSec: 5\n")
                .contains("virtualClusters[0].quotas.produceBytesPerSec: unknown key"));
        assertTrue(error(head + "      requestPercentage: 0\n")
                .contains("virtualClusters[0].quotas.requestPercentage: expected a positive percentage"));
        assertTrue(error(head + "      principals:\n        \"User:zed\": {produceBytesPerSecond: 5}\n")
                .contains("virtualClusters[0].quotas.principals.User:zed: User:zed is not a principal of this virtual cluster"));
        assertTrue(error(head + "      perPrincipal: {principals: {}}\n")
                .contains("virtualClusters[0].quotas.perPrincipal.principals: unknown key"));
    }
}
