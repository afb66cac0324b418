package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Every optional feature on (src/test/resources/all-features-values.yaml). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChartOptionalFeaturesTest {
    private final RenderedChart rendered = ChartRenderer.chart().values("all-features-values.yaml").render();

    @Test
    void everyOptionalObjectIsRendered() {
        assertEquals(List.of("NetworkPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "ConfigMap",
                "ConfigMap", "Service", "Service", "Deployment", "HorizontalPodAutoscaler", "ServiceMonitor"),
                rendered.kinds());
    }

    @Test
    void podStaysRestrictedWithEveryFeatureOn() {
        RenderedChart defaults = ChartRenderer.chart().render();
        assertEquals(defaults.podSpec().path("securityContext"), rendered.podSpec().path("securityContext"));
        assertEquals(defaults.container().path("securityContext"), rendered.container().path("securityContext"));
        rendered.container().path("volumeMounts").forEach(mount -> assertTrue(
                mount.path("mountPath").asText().equals("/tmp") || mount.path("readOnly").asBoolean(),
                "writable mount " + mount));
    }

    @Test
    void lfsPortIsOnTheContainerAndTheService() {
        assertEquals(8080, ChartDefaultsTest.containerPort(rendered.container(), "lfs"));
        assertEquals(Map.of("kafka", 9092, "lfs", 8080),
                ChartDefaultsTest.servicePorts(rendered.service().path("spec")));
        assertEquals(":8080", rendered.effectiveSetting("KAFSCALE_LFS_PROXY_HTTP_ADDR").orElseThrow());
        assertEquals("true", rendered.effectiveSetting("KAFSCALE_PROXY_LFS_ENABLED").orElseThrow());
    }

    @Test
    void s3CredentialsComeFromTheSecret() {
        assertEquals("AKIAEXAMPLEACCESS", rendered.effectiveSetting("KAFSCALE_LFS_PROXY_S3_ACCESS_KEY").orElseThrow());
        assertEquals("s3-secret-key-value", rendered.effectiveSetting("KAFSCALE_LFS_PROXY_S3_SECRET_KEY").orElseThrow());
        assertTrue(rendered.env().get("KAFSCALE_LFS_PROXY_S3_SECRET_KEY").path("valueFrom").has("secretKeyRef"));
        assertEquals("media-blobs", rendered.effectiveSetting("KAFSCALE_LFS_PROXY_S3_BUCKET").orElseThrow());
    }

    @Test
    void largeNumbersReachTheProxyAsIntegers() {
        // Helm reads numbers of values files as floats; 10737418240 must not become 1.073741824e+10
        assertEquals("10737418240", rendered.effectiveSetting("KAFSCALE_LFS_PROXY_MAX_BLOB_SIZE").orElseThrow());
    }

    @Test
    void objectKeysDefaultToTheReleaseNamespaceAndEnvelopesNameThePod() {
        assertEquals(ChartRenderer.NAMESPACE, rendered.effectiveSetting("KAFSCALE_S3_NAMESPACE").orElseThrow());
        assertEquals("metadata.name",
                rendered.env().get("KAFSCALE_LFS_PROXY_ID").path("valueFrom").path("fieldRef").path("fieldPath").asText());
    }

    @Test
    void tlsFilesPointIntoMountedSecrets() {
        Map<String, String> mounts = mounts();
        assertTrue(rendered.effectiveSetting("KAFSCALE_PROXY_ETCD_CA_FILE").orElseThrow()
                .startsWith(mounts.get("etcd-tls") + "/"));
        assertTrue(rendered.effectiveSetting("KAFSCALE_LFS_PROXY_HTTP_TLS_CERT_FILE").orElseThrow()
                .startsWith(mounts.get("lfs-tls") + "/"));
        assertEquals("true", rendered.effectiveSetting("KAFSCALE_LFS_PROXY_HTTP_TLS_REQUIRE_CLIENT_CERT").orElseThrow());
        assertEquals("etcd-client-tls", volume("etcd-tls").path("secret").path("secretName").asText());
        assertEquals("lfs-http-tls", volume("lfs-tls").path("secret").path("secretName").asText());
    }

    @Test
    void advertisesTheLoadBalancersExternalName() {
        assertEquals("kafka.example.com", rendered.effectiveSetting("KAFSCALE_PROXY_ADVERTISED_HOST").orElseThrow());
        assertEquals("kafka.example.com", rendered.service().path("metadata").path("annotations")
                .path("external-dns.alpha.kubernetes.io/hostname").asText());
    }

    @Test
    void autoscalerOwnsTheReplicaCount() {
        assertFalse(rendered.get("Deployment").path("spec").has("replicas"));
        JsonNode hpa = rendered.get("HorizontalPodAutoscaler").path("spec");
        assertEquals("Deployment", hpa.path("scaleTargetRef").path("kind").asText());
        assertEquals(rendered.get("Deployment").path("metadata").path("name").asText(),
                hpa.path("scaleTargetRef").path("name").asText());
        assertEquals(3, hpa.path("minReplicas").asInt());
        assertEquals(9, hpa.path("maxReplicas").asInt());
    }

    @Test
    void disruptionBudgetAndServiceMonitorSelectTheProxyPods() {
        JsonNode podLabels = rendered.get("Deployment").path("spec").path("selector").path("matchLabels");
        assertEquals(podLabels, rendered.get("PodDisruptionBudget").path("spec").path("selector").path("matchLabels"));
        assertEquals(2, rendered.get("PodDisruptionBudget").path("spec").path("minAvailable").asInt());

        JsonNode monitor = rendered.get("ServiceMonitor");
        assertEquals("monitoring.coreos.com/v1", monitor.path("apiVersion").asText());
        JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
        assertEquals("health", endpoint.path("port").asText());
        assertEquals("/metrics", endpoint.path("path").asText());
        assertEquals("prometheus", monitor.path("metadata").path("labels").path("release").asText());
        // The monitor selects the health Service only: the client Service has no health port.
        JsonNode selected = monitor.path("spec").path("selector").path("matchLabels");
        selected.fields().forEachRemaining(label -> assertEquals(label.getValue(),
                rendered.healthService().path("metadata").path("labels").path(label.getKey()), label.getKey()));
        assertTrue(rendered.service().path("metadata").path("labels").path("kafscale.io/endpoint").isMissingNode());
    }

    @Test
    void networkPolicyAdmitsEachPortAndAllowsDnsOut() {
        JsonNode policy = rendered.get("NetworkPolicy").path("spec");
        List<String> ingressPorts = StreamSupport.stream(policy.path("ingress").spliterator(), false)
                .map(rule -> rule.path("ports").get(0).path("port").asText()).toList();
        assertEquals(List.of("kafka", "health", "lfs"), ingressPorts);
        assertEquals("true", policy.path("ingress").get(0).path("from").get(0).path("namespaceSelector")
                .path("matchLabels").path("kafka-clients").asText());
        assertTrue(policy.path("policyTypes").toString().contains("Egress"));
        assertEquals(53, policy.path("egress").get(0).path("ports").get(0).path("port").asInt());
    }

    @Test
    void hardAntiAffinityIsRequired() {
        JsonNode antiAffinity = rendered.podSpec().path("affinity").path("podAntiAffinity");
        assertEquals("kubernetes.io/hostname", antiAffinity.path("requiredDuringSchedulingIgnoredDuringExecution")
                .get(0).path("topologyKey").asText());
        assertTrue(antiAffinity.path("preferredDuringSchedulingIgnoredDuringExecution").isMissingNode());
    }

    @Test
    void longerDrainGivesALongerGracePeriod() {
        assertEquals("45000", rendered.effectiveSetting("KAFSCALE_PROXY_DRAIN_TIMEOUT_MS").orElseThrow());
        assertTrue(rendered.podSpec().path("terminationGracePeriodSeconds").asInt() > 45 + 5);
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
}
