package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * TLS, SASL and ACLs on the Kafka listener and TLS and SASL towards the brokers
 * (src/test/resources/security-values.yaml): what is mounted where, the settings pointing at it,
 * the cert-manager Certificate, and the combinations refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChartSecurityTest {
    private final RenderedChart rendered = ChartRenderer.chart().values("security-values.yaml").render();

    @Test
    void listenerTlsFromCertManagerWithRequiredClientCertificates() {
        JsonNode certificate = rendered.get("Certificate");
        assertEquals("cert-manager.io/v1", certificate.path("apiVersion").asText());
        assertEquals("kproxy-kafscale-proxy-tls", certificate.path("spec").path("secretName").asText());
        assertEquals("ClusterIssuer", certificate.path("spec").path("issuerRef").path("kind").asText());
        List<String> names = StreamSupport.stream(certificate.path("spec").path("dnsNames").spliterator(), false)
                .map(JsonNode::asText).toList();
        assertTrue(names.contains("kafka.example.com") && names.contains("kproxy-kafscale-proxy.streaming.svc"),
                names.toString());

        assertEquals("kproxy-kafscale-proxy-tls", volume("tls").path("secret").path("secretName").asText());
        assertEquals("/etc/kafscale/tls", mounts().get("tls"));
        assertEquals("true", setting("KAFSCALE_PROXY_TLS_ENABLED"));
        assertEquals("/etc/kafscale/tls/tls.crt", setting("KAFSCALE_PROXY_TLS_CERT_FILE"));
        assertEquals("/etc/kafscale/tls/tls.key", setting("KAFSCALE_PROXY_TLS_KEY_FILE"));
        assertEquals("/etc/kafscale/tls/ca.crt", setting("KAFSCALE_PROXY_TLS_CLIENT_CA_FILE"));
        assertEquals("true", setting("KAFSCALE_PROXY_TLS_REQUIRE_CLIENT_CERT"));
    }

    @Test
    void saslCredentialsAndAclFileAreMountedAndNamed() {
        assertEquals("SCRAM-SHA-512,OAUTHBEARER", setting("KAFSCALE_PROXY_SASL_MECHANISMS"));
        assertEquals("proxy-sasl-users", volume("sasl-credentials").path("secret").path("secretName").asText());
        assertEquals("/etc/kafscale/sasl/credentials", setting("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE"));
        assertEquals("proxy-acls", volume("acl").path("configMap").path("name").asText());
        assertEquals("/etc/kafscale/acl/acl.yaml", setting("KAFSCALE_PROXY_ACL_FILE"));
    }

    @Test
    void backendTlsAndSaslPointAtTheMountedSecretAndKeepThePasswordInTheSecret() {
        assertEquals("kafka-client-tls", volume("backend-tls").path("secret").path("secretName").asText());
        assertEquals("true", setting("KAFSCALE_PROXY_BACKEND_TLS_ENABLED"));
        assertEquals("/etc/kafscale/backend-tls/ca.crt", setting("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE"));
        assertEquals("/etc/kafscale/backend-tls/tls.crt", setting("KAFSCALE_PROXY_BACKEND_TLS_CERT_FILE"));
        assertEquals("/etc/kafscale/backend-tls/tls.key", setting("KAFSCALE_PROXY_BACKEND_TLS_KEY_FILE"));
        assertEquals("SCRAM-SHA-512", setting("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM"));
        assertEquals("kafscale-proxy", setting("KAFSCALE_PROXY_BACKEND_SASL_USERNAME"));
        assertEquals("backend-password-value", setting("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD"));
        assertFalse(rendered.configMapData().containsKey("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD"));
        assertTrue(rendered.secretData().containsKey("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD"));
    }

    @Test
    void everySecurityMountIsReadOnlyAndAWholeDirectory() {
        rendered.container().path("volumeMounts").forEach(mount -> {
            if (!mount.path("mountPath").asText().equals("/tmp")) {
                assertTrue(mount.path("readOnly").asBoolean(), mount.toString());
                // subPath mounts never see a rotated Secret.
                assertTrue(mount.path("subPath").isMissingNode(), mount.toString());
            }
        });
    }

    @Test
    void combinationsThatCannotWorkAreRefused() {
        assertRefused(ChartRenderer.chart().set("tls.enabled", true), "tls.enabled needs tls.secretName");
        assertRefused(ChartRenderer.chart().set("tls.clientAuth", "required"), "needs tls.enabled");
        assertRefused(ChartRenderer.chart().valuesYaml("""
                sasl:
                  mechanisms: [PLAIN]
                """), "sasl.credentialsSecret");
        assertRefused(ChartRenderer.chart().set("acl.configMap", "a").set("acl.secret", "b"), "both set");
        assertRefused(ChartRenderer.chart().set("backend.tls.mutual", true).set("backend.tls.enabled", true),
                "backend.tls.secretName");
        assertRefused(ChartRenderer.chart().set("backend.tls.secretName", "kafka-ca"), "backend.tls.enabled");
        assertRefused(ChartRenderer.chart().set("backend.sasl.mechanism", "GSSAPI"), "mechanism");
        assertRefused(ChartRenderer.chart().set("config.KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", "x"),
                "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD");
    }

    private String setting(String name) {
        return rendered.effectiveSetting(name).orElseThrow(() -> new AssertionError(name + " is not set"));
    }

    private Map<String, String> mounts() {
        Map<String, String> mounts = new HashMap<>();
        rendered.container().path("volumeMounts").forEach(m -> mounts.put(m.path("name").asText(),
                m.path("mountPath").asText()));
        return mounts;
    }

    private JsonNode volume(String name) {
        return StreamSupport.stream(rendered.podSpec().path("volumes").spliterator(), false)
                .filter(v -> name.equals(v.path("name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("No volume " + name));
    }

    private static void assertRefused(ChartRenderer chart, String messagePart) {
        RuntimeException refused = assertThrows(RuntimeException.class, chart::renderText);
        assertTrue(refused.getMessage().contains(messagePart),
                () -> "Expected '" + messagePart + "' in: " + refused.getMessage());
    }
}
