package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What `helm install` with no values gives. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChartDefaultsTest {
    private final RenderedChart rendered = ChartRenderer.chart().render();

    @Test
    void rendersOnlyTheCoreObjects() {
        assertEquals(List.of("ServiceAccount", "ConfigMap", "Service", "Service", "Deployment"), rendered.kinds());
    }

    @Test
    void podMeetsTheRestrictedPodSecurityStandard() {
        JsonNode pod = rendered.podSpec().path("securityContext");
        assertTrue(pod.path("runAsNonRoot").asBoolean());
        assertEquals(10001, pod.path("runAsUser").asInt());
        assertEquals("RuntimeDefault", pod.path("seccompProfile").path("type").asText());

        JsonNode container = rendered.container().path("securityContext");
        assertFalse(container.path("allowPrivilegeEscalation").asBoolean(true));
        assertTrue(container.path("readOnlyRootFilesystem").asBoolean());
        assertTrue(container.path("runAsNonRoot").asBoolean());
        assertEquals(10001, container.path("runAsUser").asInt());
        assertEquals("[\"ALL\"]", container.path("capabilities").path("drop").toString());
        assertEquals("RuntimeDefault", container.path("seccompProfile").path("type").asText());
        assertFalse(rendered.podSpec().path("automountServiceAccountToken").asBoolean(true));
    }

    @Test
    void tmpIsTheOnlyWritableDirectory() {
        JsonNode mounts = rendered.container().path("volumeMounts");
        assertEquals(1, mounts.size());
        assertEquals("/tmp", mounts.get(0).path("mountPath").asText());
        JsonNode tmp = rendered.podSpec().path("volumes").get(0);
        assertEquals(mounts.get(0).path("name").asText(), tmp.path("name").asText());
        assertTrue(tmp.has("emptyDir"));
    }

    @Test
    void probesUseLivezAndTheHealthStateOnTheHealthPort() {
        JsonNode container = rendered.container();
        assertEquals(9094, containerPort(container, "health"));
        assertProbe(container.path("livenessProbe"), "/livez");
        assertProbe(container.path("startupProbe"), "/livez");
        assertProbe(container.path("readinessProbe"), "/health");
        assertEquals(":9094", rendered.effectiveSetting("KAFSCALE_PROXY_HEALTH_ADDR").orElseThrow());
        assertEquals(":9092", rendered.effectiveSetting("KAFSCALE_PROXY_ADDR").orElseThrow());
    }

    @Test
    void serviceIsALoadBalancerForKafkaWhileHealthAndMetricsStayInsideTheCluster() {
        JsonNode service = rendered.service().path("spec");
        assertEquals("LoadBalancer", service.path("type").asText());
        assertEquals(Map.of("kafka", 9092), servicePorts(service), "/metrics is not published to the outside");
        JsonNode podLabels = rendered.get("Deployment").path("spec").path("selector").path("matchLabels");
        assertEquals(podLabels, service.path("selector"));
        JsonNode health = rendered.healthService().path("spec");
        assertEquals("ClusterIP", health.path("type").asText());
        assertEquals(Map.of("health", 9094), servicePorts(health));
        assertEquals(podLabels, health.path("selector"));
    }

    @Test
    void publishHealthPutsTheHealthPortBackOnTheClientService() {
        RenderedChart published = ChartRenderer.chart().set("service.publishHealth", true).render();
        assertEquals(Map.of("kafka", 9092, "health", 9094), servicePorts(published.service().path("spec")));
    }

    @Test
    void replicasPreferDifferentNodes() {
        JsonNode antiAffinity = rendered.podSpec().path("affinity").path("podAntiAffinity");
        JsonNode preferred = antiAffinity.path("preferredDuringSchedulingIgnoredDuringExecution").get(0);
        assertEquals("kubernetes.io/hostname", preferred.path("podAffinityTerm").path("topologyKey").asText());
        assertEquals(rendered.get("Deployment").path("spec").path("selector").path("matchLabels"),
                preferred.path("podAffinityTerm").path("labelSelector").path("matchLabels"));
        assertTrue(antiAffinity.path("requiredDuringSchedulingIgnoredDuringExecution").isMissingNode());
        assertEquals(2, rendered.get("Deployment").path("spec").path("replicas").asInt());
    }

    @Test
    void rolloutNeverGoesBelowTheDesiredCount() {
        JsonNode rollingUpdate = rendered.get("Deployment").path("spec").path("strategy").path("rollingUpdate");
        assertEquals(0, rollingUpdate.path("maxUnavailable").asInt(-1));
        assertEquals(1, rollingUpdate.path("maxSurge").asInt());
    }

    @Test
    void podOutlivesTheDrainDeadline() {
        int drainMs = Integer.parseInt(rendered.effectiveSetting("KAFSCALE_PROXY_DRAIN_TIMEOUT_MS").orElseThrow());
        int preStopSeconds = Integer.parseInt(
                rendered.container().path("lifecycle").path("preStop").path("exec").path("command").get(1).asText());
        int grace = rendered.podSpec().path("terminationGracePeriodSeconds").asInt();

        assertEquals(30_000, drainMs);
        assertTrue(grace > preStopSeconds + drainMs / 1000, "grace period " + grace + " s");
    }

    @Test
    void imageIsTheChartsAppVersionWhichIsTheProjectsVersion() throws Exception {
        String projectVersion = ProjectVersion.read().replace("-SNAPSHOT", "");
        assertEquals("ghcr.io/kafscale/kafscale-proxy-jvm:" + projectVersion, rendered.container().path("image").asText());
    }

    @Test
    void advertisesTheServicesClusterNameOnTheServicePort() {
        assertEquals("kproxy-kafscale-proxy.streaming.svc.cluster.local",
                rendered.effectiveSetting("KAFSCALE_PROXY_ADVERTISED_HOST").orElseThrow());
        assertEquals("9092", rendered.effectiveSetting("KAFSCALE_PROXY_ADVERTISED_PORT").orElseThrow());
    }

    @Test
    void lfsIsOffAndNoSecretIsRendered() {
        assertTrue(rendered.effectiveSetting("KAFSCALE_PROXY_LFS_ENABLED").isEmpty());
        assertTrue(rendered.find("Secret").isEmpty());
        assertTrue(rendered.env().values().stream().noneMatch(var -> var.path("valueFrom").has("secretKeyRef")));
    }

    static void assertProbe(JsonNode probe, String path) {
        assertEquals(path, probe.path("httpGet").path("path").asText());
        assertEquals("health", probe.path("httpGet").path("port").asText());
    }

    static int containerPort(JsonNode container, String name) {
        return StreamSupport.stream(container.path("ports").spliterator(), false)
                .filter(p -> name.equals(p.path("name").asText()))
                .mapToInt(p -> p.path("containerPort").asInt())
                .findFirst().orElseThrow(() -> new AssertionError("No container port " + name));
    }

    static Map<String, Integer> servicePorts(JsonNode serviceSpec) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        serviceSpec.path("ports").forEach(p -> {
            assertEquals(p.path("name").asText(), p.path("targetPort").asText(), "targetPort by name");
            ports.put(p.path("name").asText(), p.path("port").asInt());
        });
        return ports;
    }
}
