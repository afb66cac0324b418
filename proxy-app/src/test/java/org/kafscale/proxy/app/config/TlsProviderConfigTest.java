package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.testkit.TestCertificates;

/** KAFSCALE_PROXY_TLS_PROVIDER: OpenSSL where it loads and means the same, the JDK where asked or where not. */
class TlsProviderConfigTest {
    /** A TLS 1.3 suite: BoringSSL cannot restrict TLS 1.3 to it. */
    private static final String ONE_TLS13_SUITE = "TLS_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";

    @TempDir
    static Path dir;
    private static TestCertificates.Identity server;

    @BeforeAll
    static void certificates() throws Exception {
        server = TestCertificates.create(dir, "provider-test").server("proxy");
    }

    private static Map<String, String> tlsOn() {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.TLS_ENABLED, "true");
        env.put(ProxyConfig.TLS_CERT_FILE, server.chainFile().toString());
        env.put(ProxyConfig.TLS_KEY_FILE, server.keyFile().toString());
        return env;
    }

    private static TlsProvider provider(Map<String, String> env) {
        return ProxyConfig.from(env).tlsProvider();
    }

    @Test
    void autoIsTheDefaultAndTakesOpenSslHere() {
        // When
        TlsProvider chosen = provider(tlsOn());
        // Then
        assertEquals(SslProvider.OPENSSL, chosen.sslProvider(), chosen.reason());
        assertTrue(chosen.reason().startsWith(ProxyConfig.TLS_PROVIDER + "=auto"), chosen.reason());
    }

    @Test
    void jdkIsTheJdk() {
        Map<String, String> env = tlsOn();
        env.put(ProxyConfig.TLS_PROVIDER, "jdk");
        assertEquals(SslProvider.JDK, provider(env).sslProvider());
    }

    @Test
    void autoFallsBackToTheJdkForCiphersBoringSslWouldReadDifferently() {
        // Given
        Map<String, String> env = tlsOn();
        env.put(ProxyConfig.TLS_CIPHERS, ONE_TLS13_SUITE);
        // When
        TlsProvider chosen = provider(env);
        // Then
        assertEquals(SslProvider.JDK, chosen.sslProvider());
        assertTrue(chosen.reason().contains("TLS 1.3"), chosen.reason());
    }

    @Test
    void opensslWithCiphersBoringSslWouldReadDifferentlyStopsStartUpNamingTheSetting() {
        // Given
        Map<String, String> env = tlsOn();
        env.put(ProxyConfig.TLS_CIPHERS, ONE_TLS13_SUITE);
        env.put(ProxyConfig.TLS_PROVIDER, "openssl");
        // When
        String message = assertThrows(ConfigException.class, () -> ProxyConfig.from(env)).getMessage();
        // Then
        assertTrue(message.startsWith(ProxyConfig.TLS_PROVIDER + "=openssl cannot be used"), message);
    }

    @Test
    void theListenerCiphersDoNotMatterWithoutListenerTls() {
        // Given: no listener TLS, so its (unused) cipher list is not a reason to leave OpenSSL
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.TLS_PROVIDER, "openssl");
        // Then
        assertEquals(SslProvider.OPENSSL, provider(env).sslProvider());
    }

    @Test
    void anUnknownProviderStopsStartUpNamingTheSetting() {
        Map<String, String> env = tlsOn();
        env.put(ProxyConfig.TLS_PROVIDER, "boringssl");
        String message = assertThrows(ConfigException.class, () -> ProxyConfig.from(env)).getMessage();
        assertTrue(message.startsWith(ProxyConfig.TLS_PROVIDER + "=boringssl is invalid"), message);
    }
}
