package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.backend.security.BackendSaslSettings;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.core.backend.security.BackendTlsSettings;
import org.kafscale.proxy.testkit.TestCertificates;

/** {@code KAFSCALE_PROXY_BACKEND_TLS_*} and {@code _SASL_*}: read as given, and refused when they cannot work. */
class BackendSecurityConfigTest {
    @TempDir
    Path dir;

    private static Map<String, String> minimal() {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9093");
        return env;
    }

    @Test
    void unsetMeansPlaintextWithoutAuthentication() {
        assertEquals(BackendSecurity.NONE, ProxyConfig.from(minimal()).backendSecurity());
    }

    @Test
    void tlsWithCaAndClientCertificateAndScramAreReadAsGiven() {
        // Given
        TestCertificates certificates = TestCertificates.create(dir);
        TestCertificates.Identity client = certificates.client("proxy");
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        env.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", certificates.caFile().toString());
        env.put("KAFSCALE_PROXY_BACKEND_TLS_CERT_FILE", client.certificateFile().toString());
        env.put("KAFSCALE_PROXY_BACKEND_TLS_KEY_FILE", client.keyFile().toString());
        env.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "scram-sha-512");
        env.put("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", "proxy");
        env.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", "secret");
        // When
        ProxyConfig config = ProxyConfig.from(env);
        BackendSecurity security = config.backendSecurity();
        // Then: built with the process's one TLS provider
        assertEquals(new BackendTlsSettings(certificates.caFile(), client.certificateFile(), client.keyFile(), true,
                BackendTlsSettings.DEFAULT_RELOAD_INTERVAL, config.tlsProvider()), security.tls().orElseThrow());
        assertEquals(BackendSaslSettings.password("SCRAM-SHA-512", "proxy", "secret"), security.sasl().orElseThrow());
        assertEquals("SASL_SSL", security.protocol());
        assertFalse(security.sasl().orElseThrow().toString().contains("secret"), "the password stays out of logs");
    }

    @Test
    void anUnreadableCaFileStopsStartUpNamingTheSetting() {
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        env.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", dir.resolve("missing-ca.pem").toString());
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE=") && e.getMessage()
                .endsWith("is invalid: expected a readable file"), e.getMessage());
    }

    @Test
    void aCaFileThatHoldsNoCertificateStopsStartUpNamingTheSetting() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        env.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", notPem.toString());
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().contains("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE=" + notPem) && e.getMessage()
                .contains("cannot be used"), e.getMessage());
    }

    @Test
    void aTlsFileWithoutTlsEnabledStopsStartUpRatherThanBeIgnored() {
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", "/etc/ca.pem");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertEquals("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE is set but takes effect only with "
                + "KAFSCALE_PROXY_BACKEND_TLS_ENABLED=true; set that too, or remove KAFSCALE_PROXY_BACKEND_TLS_CA_FILE",
                e.getMessage());
    }

    @Test
    void aPasswordWithoutAMechanismStopsStartUp() {
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", "secret");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD is set but takes effect only with "
                + "KAFSCALE_PROXY_BACKEND_SASL_MECHANISM"), e.getMessage());
    }

    @Test
    void anUnknownMechanismOrMissingCredentialsStopStartUp() {
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "GSSAPI");
        assertEquals("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM=GSSAPI is invalid: expected PLAIN, SCRAM-SHA-256, "
                + "SCRAM-SHA-512 or OAUTHBEARER", assertThrows(ConfigException.class, () -> ProxyConfig.from(env))
                .getMessage());
        env.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "PLAIN");
        env.put("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", "proxy");
        assertEquals("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD is required with KAFSCALE_PROXY_BACKEND_SASL_MECHANISM=PLAIN",
                assertThrows(ConfigException.class, () -> ProxyConfig.from(env)).getMessage());
    }

    @Test
    void oauthBearerTakesTheClientCredentialsGrant() {
        Map<String, String> env = minimal();
        env.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "OAUTHBEARER");
        env.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL", "https://idp.example/token");
        env.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_ID", "kafscale-proxy");
        env.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET", "s3cr3t");
        BackendSaslSettings sasl = ProxyConfig.from(env).backendSecurity().sasl().orElseThrow();
        assertEquals("kafscale-proxy", sasl.oauth().clientId());
        assertEquals("https://idp.example/token", sasl.oauth().tokenEndpoint().toString());
        env.remove("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET");
        assertEquals("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET is required with "
                        + "KAFSCALE_PROXY_BACKEND_SASL_MECHANISM=OAUTHBEARER",
                assertThrows(ConfigException.class, () -> ProxyConfig.from(env)).getMessage());
    }
}
