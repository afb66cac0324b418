package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.BrokerPorts;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.routing.fetch.ReadAheadSettings;

class ProxyConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092, broker-1:9092");
        return env;
    }

    @Test
    void kafscaleNamesConfigureTheListenerAndDefaultsFollowTheOriginal() {
        // Given
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ADDR, ":19092");
        env.put(ProxyConfig.ADVERTISED_HOST, "proxy.example");
        // When
        ProxyConfig config = ProxyConfig.from(env);
        // Then
        assertEquals(new HostPort("", 19092), config.listen());
        assertEquals("proxy.example", config.advertisedHost());
        assertEquals(19092, config.advertisedPort(), "advertised port defaults to the listen port");
        assertEquals(AdvertiseMode.SINGLE, config.advertiseMode(), "single works with every client");
        assertEquals(2, config.backends().size());
        assertEquals(100 * 1024 * 1024, config.maxFrameBytes());
        assertEquals(Duration.ofSeconds(30), config.requestTimeout());
        assertTrue(config.health().isEmpty(), "no health listener unless its address is set");
    }

    @Test
    void fetchReadAheadIsOnByDefaultInSingleModeOnlyWithItsBoundAndCanBeTurnedOff() {
        // Given nothing set (single mode), brokers mode, read-ahead off, and read-ahead on in brokers mode
        ReadAheadSettings byDefault = ProxyConfig.from(minimal()).fetchReadAhead();
        Map<String, String> brokers = minimal();
        brokers.put(ProxyConfig.ADVERTISE_MODE, "brokers");
        Map<String, String> off = minimal();
        off.put(ProxyConfig.FETCH_READ_AHEAD, "false");
        off.put(ProxyConfig.FETCH_READ_AHEAD_MAX_BYTES, "1048576");
        Map<String, String> onInBrokers = new HashMap<>(brokers);
        onInBrokers.put(ProxyConfig.FETCH_READ_AHEAD, "true");
        // Then
        assertEquals(new ReadAheadSettings(true, ReadAheadSettings.DEFAULT_MAX_HELD_BYTES), byDefault);
        assertEquals(new ReadAheadSettings(false, ReadAheadSettings.DEFAULT_MAX_HELD_BYTES),
                ProxyConfig.from(brokers).fetchReadAhead(), "off by default outside single mode");
        assertEquals(new ReadAheadSettings(false, 1_048_576), ProxyConfig.from(off).fetchReadAhead());
        assertEquals(new ReadAheadSettings(true, ReadAheadSettings.DEFAULT_MAX_HELD_BYTES),
                ProxyConfig.from(onInBrokers).fetchReadAhead(), "an explicit true wins in any mode");
    }

    @Test
    void authorizationIsOffByDefaultAndOnWithAReadableAclFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        // Given
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("acls.yaml"), "acls: []\n");
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ACL_FILE, file.toString());
        env.put(ProxyConfig.ACL_RELOAD_MS, "250");
        Map<String, String> missing = minimal();
        missing.put(ProxyConfig.ACL_FILE, dir.resolve("absent.yaml").toString());
        // Then
        assertTrue(ProxyConfig.from(minimal()).acl().isEmpty(), "no authorization unless a file is set");
        assertEquals(new org.kafscale.proxy.core.security.authz.AclSettings(file, Duration.ofMillis(250)),
                ProxyConfig.from(env).acl().orElseThrow());
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> ProxyConfig.from(missing));
        assertTrue(e.getMessage().startsWith(ProxyConfig.ACL_FILE + "="), e.getMessage());
    }

    @Test
    void advertiseModeBrokersIsAccepted() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ADVERTISE_MODE, "Brokers");
        assertEquals(AdvertiseMode.BROKERS, ProxyConfig.from(env).advertiseMode());
    }

    @Test
    void advertiseModePortsGivesEachBrokerIdItsOwnPortFromConfigurationAlone() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ADVERTISE_MODE, "ports");
        env.put(ProxyConfig.BROKER_PORT_BASE, "9100");
        ProxyConfig config = ProxyConfig.from(env);
        assertEquals(AdvertiseMode.PORTS, config.advertiseMode());
        assertEquals(new BrokerPorts(9100, 64), config.brokerPorts(), "64 broker ports by default");
        assertEquals(9100 + 63, config.listenerSettings().brokerBindAddress(63).getPort());
    }

    @Test
    void brokerPortsAreIgnoredOutsidePortsMode() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.BROKER_PORT_BASE, "65535");
        assertEquals(BrokerPorts.NONE, ProxyConfig.from(env).brokerPorts());
    }

    @Test
    void unknownAdvertiseModeStopsStartUpNamingTheSetting() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ADVERTISE_MODE, "mirror");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertEquals("KAFSCALE_PROXY_ADVERTISE_MODE=mirror is invalid: expected single, brokers, ports or sni", e.getMessage());
    }

    @Test
    void proxyProtocolIsOffByDefaultAndReachesTheListenerWhenSet() {
        // Given
        Map<String, String> env = minimal();
        // Then
        assertEquals(ProxyProtocolMode.OFF, ProxyConfig.from(env).listenerSettings().proxyProtocol());
        // When
        env.put(ProxyConfig.ACCEPT_PROXY_PROTOCOL, "Required");
        // Then
        assertEquals(ProxyProtocolMode.REQUIRED, ProxyConfig.from(env).listenerSettings().proxyProtocol());
    }

    @Test
    void unknownProxyProtocolModeStopsStartUpNamingTheSetting() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ACCEPT_PROXY_PROTOCOL, "v2");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertEquals("KAFSCALE_PROXY_ACCEPT_PROXY_PROTOCOL=v2 is invalid: expected one of off, optional, required",
                e.getMessage());
    }

    @Test
    void portThatIsNotANumberStopsStartUp() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.ADVERTISED_PORT, "ninety");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_ADVERTISED_PORT=ninety is invalid"), e.getMessage());
    }

    @Test
    void frameLimitOutOfRangeStopsStartUp() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.MAX_FRAME_BYTES, "-1");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_MAX_FRAME_BYTES=-1 is invalid"), e.getMessage());
    }

    @Test
    void malformedBackendAddressStopsStartUp() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.BACKENDS, "broker-0");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_BACKENDS=broker-0 is invalid"), e.getMessage());
    }

    @Test
    void withNeitherEtcdNorBackendsStartUpStopsNamingBoth() {
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(Map.of()));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_BACKENDS and KAFSCALE_PROXY_ETCD_ENDPOINTS are both unset"),
                e.getMessage());
    }

    @Test
    void etcdEndpointsAloneConfigureTheEtcdTopologyWithTheDefaultTtl() {
        // Given
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.ETCD_ENDPOINTS, "http://etcd-0:2379, etcd-1:2379");
        // When
        ProxyConfig config = ProxyConfig.from(env);
        // Then
        assertEquals(java.util.List.of("http://etcd-0:2379", "http://etcd-1:2379"), config.etcd().orElseThrow().endpoints());
        assertEquals(Duration.ofSeconds(60), config.backendCacheTtl());
    }

    @Test
    void etcdClientCertificateWithoutKeyStopsStartUp() throws Exception {
        java.nio.file.Path cert = java.nio.file.Files.createTempFile("etcd", ".crt");
        try {
            Map<String, String> env = new HashMap<>();
            env.put(ProxyConfig.ETCD_ENDPOINTS, "https://etcd-0:2379");
            env.put(ProxyConfig.ETCD_CERT_FILE, cert.toString());
            ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
            assertEquals("KAFSCALE_PROXY_ETCD_CERT_FILE and KAFSCALE_PROXY_ETCD_KEY_FILE must be set together", e.getMessage());
        } finally {
            java.nio.file.Files.delete(cert);
        }
    }

    @Test
    void cacheTtlOfZeroStopsStartUp() {
        Map<String, String> env = minimal();
        env.put(ProxyConfig.BACKEND_CACHE_TTL_SEC, "0");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC=0 is invalid"), e.getMessage());
    }
}
