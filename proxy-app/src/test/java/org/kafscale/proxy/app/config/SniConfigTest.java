package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.testkit.TestCertificates;

/** Advertise mode sni: every setting it needs, refused by name when missing, wrong or out of place. */
class SniConfigTest {
    @TempDir
    static Path dir;
    private static TestCertificates.Identity server;

    @BeforeAll
    static void certificates() {
        server = TestCertificates.create(dir, "sni-config").server("proxy");
    }

    private static Map<String, String> sni() {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.ADVERTISE_MODE, "sni");
        env.put(ProxyConfig.TLS_ENABLED, "true");
        env.put(ProxyConfig.TLS_CERT_FILE, server.chainFile().toString());
        env.put(ProxyConfig.TLS_KEY_FILE, server.keyFile().toString());
        env.put(ProxyConfig.SNI_BOOTSTRAP_HOST, "Kafka.Example.com");
        env.put(ProxyConfig.SNI_BROKER_HOST_PATTERN, "broker-$(nodeId).kafka.example.com");
        return env;
    }

    private static String failure(Map<String, String> env) {
        return assertThrows(ConfigException.class, () -> ProxyConfig.from(env)).getMessage();
    }

    @Test
    void sniModeAdvertisesTheBootstrapHostAndRoutesTheListenerByName() {
        ProxyConfig config = ProxyConfig.from(sni());

        assertEquals(AdvertiseMode.SNI, config.advertiseMode());
        assertEquals("kafka.example.com", config.advertisedHost());
        assertEquals("broker-7.kafka.example.com", config.sniHosts().brokerHost(7));
        assertEquals(config.sniHosts(), config.listenerSettings().sniHosts());
    }

    @Test
    void sniModeWithoutTlsIsRefused() {
        Map<String, String> env = sni();
        env.remove(ProxyConfig.TLS_ENABLED);
        env.remove(ProxyConfig.TLS_CERT_FILE);
        env.remove(ProxyConfig.TLS_KEY_FILE);
        assertEquals("KAFSCALE_PROXY_ADVERTISE_MODE=sni needs TLS on the Kafka listener (KAFSCALE_PROXY_TLS_ENABLED"
                + "=true): the broker a client connects to is read from its TLS server name", failure(env));
    }

    @Test
    void eachNameIsRequired() {
        Map<String, String> env = sni();
        env.remove(ProxyConfig.SNI_BROKER_HOST_PATTERN);
        assertEquals("KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN is required when KAFSCALE_PROXY_ADVERTISE_MODE=sni",
                failure(env));
        env = sni();
        env.remove(ProxyConfig.SNI_BOOTSTRAP_HOST);
        assertEquals("KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST is required when KAFSCALE_PROXY_ADVERTISE_MODE=sni",
                failure(env));
    }

    @Test
    void aBadNameNamesItsSetting() {
        Map<String, String> env = sni();
        env.put(ProxyConfig.SNI_BROKER_HOST_PATTERN, "broker.kafka.example.com");
        assertEquals("KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN=broker.kafka.example.com is invalid: it must hold "
                + SniHosts.NODE_ID + " exactly once, where each broker's id goes (broker-" + SniHosts.NODE_ID
                + ".kafka.example.com)", failure(env));
        env = sni();
        env.put(ProxyConfig.SNI_BOOTSTRAP_HOST, "kafka_1.example.com");
        assertEquals("KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST=kafka_1.example.com is invalid: it is not a host name: "
                + "'kafka_1' is not a DNS label (letters, digits and inner hyphens, 1 to 63 characters)", failure(env));
    }

    @Test
    void anAdvertisedHostOtherThanTheBootstrapHostIsRefused() {
        Map<String, String> env = sni();
        env.put(ProxyConfig.ADVERTISED_HOST, "kafka.example.com");
        assertEquals("kafka.example.com", ProxyConfig.from(env).advertisedHost());
        env.put(ProxyConfig.ADVERTISED_HOST, "proxy.example.com");
        assertEquals("KAFSCALE_PROXY_ADVERTISED_HOST=proxy.example.com differs from KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST"
                + "=kafka.example.com: in sni mode clients bootstrap to the SNI host; unset "
                + "KAFSCALE_PROXY_ADVERTISED_HOST or make it the same name", failure(env));
    }

    @Test
    void theSniNamesOutsideSniModeAreRefused() {
        Map<String, String> env = sni();
        env.put(ProxyConfig.ADVERTISE_MODE, "brokers");
        assertEquals("KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST is set but KAFSCALE_PROXY_ADVERTISE_MODE=brokers: the SNI "
                + "host names are used only when KAFSCALE_PROXY_ADVERTISE_MODE=sni", failure(env));
    }

    /** The settings of {@link #sni()} with a gateway file of {@code yaml}. */
    private static Map<String, String> sniWithGateway(String yaml) throws Exception {
        Map<String, String> env = sni();
        env.put(ProxyConfig.GATEWAY_FILE, Files.writeString(dir.resolve("gateway.yaml"), yaml).toString());
        return env;
    }

    @Test
    void aVirtualClusterWithAnSniHostSuffixIsReachedByItsOwnNamesWithoutAuthentication() throws Exception {
        ProxyConfig config = ProxyConfig.from(sniWithGateway("""
                virtualClusters:
                  - name: team-a
                    sniHostSuffix: team-a.kafka.example.com
                  - name: team-b
                    sniHostSuffix: team-b.kafka.example.com
                """));

        // The routing names are the listener's, so a server name says which virtual cluster
        assertEquals(config.sniHosts(), config.listenerSettings().sniHosts());
        assertEquals(Optional.of(SniHosts.Target.broker(4).in("team-b")),
                config.listenerSettings().sniHosts().resolve("broker-4.team-b.kafka.example.com"));
        assertEquals(Optional.of(SniHosts.Target.BOOTSTRAP.in("team-a")),
                config.sniHosts().resolve("kafka.team-a.kafka.example.com"));
        assertEquals(Optional.of(SniHosts.Target.BOOTSTRAP), config.sniHosts().resolve("kafka.example.com"));
    }

    @Test
    void anSniHostSuffixOutsideSniModeIsRefusedNamingItsPath() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        Path file = Files.writeString(dir.resolve("gateway.yaml"),
                "virtualClusters:\n  - name: a\n    sniHostSuffix: a.kafka.example.com\n");
        env.put(ProxyConfig.GATEWAY_FILE, file.toString());
        assertEquals("KAFSCALE_PROXY_GATEWAY_FILE (" + file + ") is invalid at virtualClusters[0].sniHostSuffix: a "
                + "virtual cluster is placed by TLS server name only when KAFSCALE_PROXY_ADVERTISE_MODE=sni (it is "
                + "single)", failure(env));
    }

    @Test
    void anSniHostSuffixThatOverlapsIsRefusedNamingItsPath() throws Exception {
        String head = "virtualClusters:\n  - name: a\n    sniHostSuffix: a.kafka.example.com\n  - name: b\n";
        Map<String, String> env = sniWithGateway(head + "    sniHostSuffix: x.A.kafka.example.com\n");
        String prefix = "KAFSCALE_PROXY_GATEWAY_FILE (" + env.get(ProxyConfig.GATEWAY_FILE)
                + ") is invalid at virtualClusters[1].sniHostSuffix: ";
        assertEquals(prefix + "'x.A.kafka.example.com': it overlaps a.kafka.example.com, the sniHostSuffix of "
                + "virtual cluster 'a'; one may not be under the other", failure(env));
        env = sniWithGateway(head + "    sniHostSuffix: example.com\n");
        assertEquals(prefix + "'example.com': the shared name kafka.example.com is under it, so a client could not "
                + "say which it means", failure(env));
    }

    @Test
    void anSniHostSuffixNeedsTheBrokersIdInThePatternsFirstLabel() throws Exception {
        Map<String, String> env = sniWithGateway("virtualClusters:\n  - name: a\n    sniHostSuffix: a.example.com\n");
        env.put(ProxyConfig.SNI_BROKER_HOST_PATTERN, "kafka.b$(nodeId).example.com");
        assertTrue(failure(env).startsWith("KAFSCALE_PROXY_GATEWAY_FILE (" + env.get(ProxyConfig.GATEWAY_FILE)
                + ") is invalid at virtualClusters[0].sniHostSuffix: 'a.example.com': "
                + "KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN=kafka.b$(nodeId).example.com does not fit: with an "
                + "sniHostSuffix, $(nodeId) must be in the pattern's first label"), failure(env));
    }

    @Test
    void aListenerOfItsOwnIsRefusedInSniMode() throws Exception {
        Map<String, String> env = sniWithGateway("virtualClusters:\n  - name: a\n    listener: ':19192'\n");
        assertTrue(failure(env).contains("virtual cluster 'a' has a listener of its own, which "
                + "KAFSCALE_PROXY_ADVERTISE_MODE=sni does not support: in sni mode a virtual cluster is reached on "
                + "the Kafka listener by TLS server names of its own (sniHostSuffix)"), failure(env));
    }
}
