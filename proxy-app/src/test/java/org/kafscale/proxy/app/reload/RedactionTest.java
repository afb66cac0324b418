package org.kafscale.proxy.app.reload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** GET /admin/config shows where secrets are, never what they are. */
class RedactionTest {

    @Test
    void secretSettingsAreRedactedAndTheOthersShown() {
        Map<String, String> shown = Redaction.settings(Map.of(
                "KAFSCALE_PROXY_ADMIN_TOKEN", "t0ken",
                "KAFSCALE_LFS_PROXY_S3_SECRET_KEY", "s3cr3t",
                "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", "pw",
                "KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", "/etc/kafscale/sasl/users",
                "KAFSCALE_PROXY_ADVERTISED_HOST", "kafka.example.com"));

        assertEquals(Map.of(
                "KAFSCALE_PROXY_ADMIN_TOKEN", Redaction.REDACTED,
                "KAFSCALE_LFS_PROXY_S3_SECRET_KEY", Redaction.REDACTED,
                "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", Redaction.REDACTED,
                "KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", "/etc/kafscale/sasl/users",
                "KAFSCALE_PROXY_ADVERTISED_HOST", "kafka.example.com"), shown);
    }

    @Test
    void aGatewayFilesKeyStorePasswordIsRedactedButAReferenceToItIsShown() {
        GatewayTree tree = GatewayTree.parse("""
                encryption:
                  - topics: "secret\\\\..*"
                    kek: {keystore: /etc/kek.p12, password: hunter2, alias: kek-1}
                  - topics: "other"
                    kek: {keystore: /etc/kek.p12, password: "${env:KEK_PASSWORD}", alias: kek-1}
                """.getBytes(StandardCharsets.UTF_8));

        var shown = Redaction.tree(tree.root());

        assertEquals(Redaction.REDACTED, shown.path("encryption").path(0).path("kek").path("password").asText());
        assertEquals("${env:KEK_PASSWORD}", shown.path("encryption").path(1).path("kek").path("password").asText());
        assertEquals("/etc/kek.p12", shown.path("encryption").path(0).path("kek").path("keystore").asText());
        assertEquals("hunter2", tree.root().path("encryption").path(0).path("kek").path("password").asText(),
                "the tree in force is not changed");
    }
}
