package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Credentials from a Secret the user manages (sealed-secrets, external-secrets, the operator's). */
class ChartExistingSecretTest {

    @Test
    void everySecretSettingIsReadFromTheExistingSecretWhenPresent() {
        // Given: LFS on, credentials in "proxy-credentials", the S3 keys under AWS names
        RenderedChart rendered = ChartRenderer.chart().valuesYaml("""
                existingSecret: proxy-credentials
                existingSecretKeys:
                  KAFSCALE_LFS_PROXY_S3_ACCESS_KEY: AWS_ACCESS_KEY_ID
                  KAFSCALE_LFS_PROXY_S3_SECRET_KEY: AWS_SECRET_ACCESS_KEY
                lfs:
                  enabled: true
                  s3:
                    bucket: blobs
                    region: us-east-1
                """).render();

        // Then: no Secret of the chart's; each secret setting refers to the user's, optionally
        assertTrue(rendered.find("Secret").isEmpty());
        Map<String, String> expectedKeys = Map.of(
                "KAFSCALE_PROXY_ETCD_PASSWORD", "KAFSCALE_PROXY_ETCD_PASSWORD",
                "KAFSCALE_LFS_PROXY_HTTP_API_KEY", "KAFSCALE_LFS_PROXY_HTTP_API_KEY",
                "KAFSCALE_LFS_PROXY_S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
                "KAFSCALE_LFS_PROXY_S3_SECRET_KEY", "AWS_SECRET_ACCESS_KEY",
                "KAFSCALE_LFS_PROXY_S3_SESSION_TOKEN", "KAFSCALE_LFS_PROXY_S3_SESSION_TOKEN",
                "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD",
                "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET", "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET");
        expectedKeys.forEach((name, key) -> {
            JsonNode ref = rendered.env().get(name).path("valueFrom").path("secretKeyRef");
            assertEquals("proxy-credentials", ref.path("name").asText(), name);
            assertEquals(key, ref.path("key").asText(), name);
            assertTrue(ref.path("optional").asBoolean(), name + " must be optional: a missing key leaves it unset");
        });
    }

    @Test
    void withoutLfsOnlyTheEtcdBackendAndAdminCredentialsAreReferenced() {
        RenderedChart rendered = ChartRenderer.chart().set("existingSecret", "proxy-credentials").render();

        List<String> fromSecret = rendered.env().entrySet().stream()
                .filter(e -> e.getValue().path("valueFrom").has("secretKeyRef"))
                .map(Map.Entry::getKey).toList();
        assertEquals(List.of("KAFSCALE_PROXY_ETCD_PASSWORD", "KAFSCALE_PROXY_ADMIN_TOKEN",
                "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD",
                "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET"), fromSecret);
    }
}
