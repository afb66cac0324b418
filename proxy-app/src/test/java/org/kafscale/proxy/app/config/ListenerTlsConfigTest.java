package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings.ClientCertificates;
import org.kafscale.proxy.testkit.TestCertificates;

/** KAFSCALE_PROXY_TLS_*: a wrong setting stops start-up naming it, never leaves the listener plaintext. */
class ListenerTlsConfigTest {
    @TempDir
    static Path dir;
    private static TestCertificates ca;
    private static TestCertificates.Identity server;
    private static TestCertificates.Identity other;

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.create(dir, "config-test");
        server = ca.server("proxy");
        other = ca.server("other");
    }

    private static Map<String, String> tlsOn() {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ConfigKey.TLS_ENABLED.envName(), "true");
        env.put(ConfigKey.TLS_CERT_FILE.envName(), server.chainFile().toString());
        env.put(ConfigKey.TLS_KEY_FILE.envName(), server.keyFile().toString());
        return env;
    }

    private static String failure(Map<String, String> env) {
        return assertThrows(ConfigException.class, () -> ProxyConfig.from(env)).getMessage();
    }

    @Test
    void pemFilesTurnTlsOnWithoutClientCertificates() {
        // When
        ListenerTlsSettings tls = ProxyConfig.from(tlsOn()).listenerTls().orElseThrow();
        // Then
        assertEquals(ClientCertificates.NONE, tls.clientCertificates());
        assertEquals(ListenerTlsSettings.DEFAULT_PROTOCOLS, tls.protocols());
        assertTrue(ProxyConfig.from(tlsOn()).listenerSettings().tls().isPresent());
    }

    @Test
    void aClientCaRequiresClientCertificatesUnlessToldOtherwise() {
        // Given
        Map<String, String> env = tlsOn();
        env.put(ConfigKey.TLS_CLIENT_CA_FILE.envName(), ca.caFile().toString());
        // Then
        assertEquals(ClientCertificates.REQUIRED, ProxyConfig.from(env).listenerTls().orElseThrow().clientCertificates());
        env.put(ConfigKey.TLS_REQUIRE_CLIENT_CERT.envName(), "false");
        assertEquals(ClientCertificates.OPTIONAL, ProxyConfig.from(env).listenerTls().orElseThrow().clientCertificates());
    }

    @Test
    void aKeyStoreIsAnAlternativeToPemFiles() {
        // Given
        Map<String, String> env = tlsOn();
        env.remove(ConfigKey.TLS_CERT_FILE.envName());
        env.remove(ConfigKey.TLS_KEY_FILE.envName());
        env.put(ConfigKey.TLS_KEYSTORE_FILE.envName(), server.keyStoreFile().toString());
        env.put(ConfigKey.TLS_KEYSTORE_PASSWORD.envName(), TestCertificates.PASSWORD);
        // Then
        assertTrue(ProxyConfig.from(env).listenerTls().orElseThrow().keyMaterial()
                instanceof ListenerTlsSettings.KeyMaterial.KeyStoreFile);
        env.put(ConfigKey.TLS_KEYSTORE_PASSWORD.envName(), "wrong");
        assertTrue(failure(env).startsWith(ConfigKey.TLS_KEYSTORE_FILE.envName()), failure(env));
    }

    @Test
    void tlsFilesSetWhileTlsIsOffStopStartUp() {
        // Given
        Map<String, String> env = tlsOn();
        env.remove(ConfigKey.TLS_ENABLED.envName());
        // Then
        String message = failure(env);
        assertTrue(message.contains(ConfigKey.TLS_CERT_FILE.envName()) && message.contains("plaintext"), message);
    }

    @Test
    void tlsWithoutACertificateStopsStartUpNamingTheSetting() {
        // Given
        Map<String, String> env = tlsOn();
        env.remove(ConfigKey.TLS_CERT_FILE.envName());
        env.remove(ConfigKey.TLS_KEY_FILE.envName());
        // Then
        assertTrue(failure(env).startsWith(ConfigKey.TLS_CERT_FILE.envName()), failure(env));
    }

    @Test
    void aCertificateFileThatIsNoCertificateStopsStartUpNamingTheSetting() throws Exception {
        // Given
        Path garbage = Files.writeString(dir.resolve("garbage.crt"), "not a certificate\n");
        Map<String, String> env = tlsOn();
        env.put(ConfigKey.TLS_CERT_FILE.envName(), garbage.toString());
        // Then
        assertTrue(failure(env).startsWith(ConfigKey.TLS_CERT_FILE.envName() + "="), failure(env));
    }

    @Test
    void anUnreadableKeyFileStopsStartUpNamingTheSetting() {
        // Given
        Map<String, String> env = tlsOn();
        env.put(ConfigKey.TLS_KEY_FILE.envName(), dir.resolve("missing.key").toString());
        // Then
        assertTrue(failure(env).startsWith(ConfigKey.TLS_KEY_FILE.envName() + "="), failure(env));
    }

    @Test
    void aKeyOfAnotherCertificateStopsStartUpNamingTheKeySetting() {
        // Given
        Map<String, String> env = tlsOn();
        env.put(ConfigKey.TLS_KEY_FILE.envName(), other.keyFile().toString());
        // Then
        String message = failure(env);
        assertTrue(message.startsWith(ConfigKey.TLS_KEY_FILE.envName() + "=") && message.contains("does not belong"),
                message);
    }

    @Test
    void requiringClientCertificatesWithoutACaStopsStartUp() {
        // Given
        Map<String, String> env = tlsOn();
        env.put(ConfigKey.TLS_REQUIRE_CLIENT_CERT.envName(), "true");
        // Then
        assertTrue(failure(env).startsWith(ConfigKey.TLS_REQUIRE_CLIENT_CERT.envName()), failure(env));
    }

    @Test
    void unknownProtocolCipherOrMappingRuleStopsStartUpNamingTheSetting() {
        for (ConfigKey key : new ConfigKey[] {ConfigKey.TLS_PROTOCOLS, ConfigKey.TLS_CIPHERS,
                ConfigKey.TLS_PRINCIPAL_MAPPING_RULES}) {
            // Given
            Map<String, String> env = tlsOn();
            env.put(key.envName(), key == ConfigKey.TLS_PRINCIPAL_MAPPING_RULES ? "RULE:broken" : "TLSv0.9");
            // Then
            assertTrue(failure(env).startsWith(key.envName() + "="), failure(env));
        }
    }
}
