package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
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
}
