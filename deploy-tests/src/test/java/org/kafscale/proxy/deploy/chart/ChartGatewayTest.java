package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.GatewayFile;
import org.kafscale.proxy.core.quota.QuotaLimits;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/** gateway: the virtual clusters' file, rendered by the chart or from the user's ConfigMap, reaches the proxy. */
class ChartGatewayTest {
    private static final String GATEWAY_CONFIG_MAP = ChartRenderer.RELEASE + "-kafscale-proxy-gateway";
    /** Clients authenticate, which a gateway file needs. */
    private static final String SASL = """
            sasl:
              mechanisms: [PLAIN]
              credentialsSecret: proxy-users
            """;
    private static final String TWO_TENANTS = SASL + """
            gateway:
              virtualClusters:
                - name: team-a
                  principals: ["User:alice", "User:CN=orders-service,O=acme"]
                - name: team-b
                  principals: ["User:bob"]
                  clusterId: team-b-prod
                  topicPrefix: "tb-"
                  groupPrefix: "tbg-"
                  transactionalIdPrefix: "tbt-"
            """;

    @Test
    void theRenderedFileIsOneTheProxyReads() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml(TWO_TENANTS).render();

        String file = rendered.get("ConfigMap", GATEWAY_CONFIG_MAP).path("data").path("gateway.yaml").asText();
        VirtualClusters clusters = GatewayFile.parse("chart", file.getBytes(StandardCharsets.UTF_8)).virtualClusters();

        VirtualCluster teamB = clusters.of(new KafkaPrincipal("User", "bob")).orElseThrow();
        assertEquals("team-b", teamB.name());
        assertEquals("team-b-prod", teamB.clusterId());
        assertEquals("tb-orders", teamB.names().topic("orders"));
        assertEquals("tbg-readers", teamB.names().group("readers"));
        assertEquals("tbt-tx", teamB.names().transactionalId("tx"));
        VirtualCluster teamA = clusters.of(new KafkaPrincipal("User", "CN=orders-service,O=acme")).orElseThrow();
        assertEquals("team-a.orders", teamA.names().topic("orders"));
    }

    @Test
    void quotasReachTheProxyAsWritten() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  virtualClusters:
                    - name: team-a
                      principals: ["User:alice"]
                      quotas:
                        produceBytesPerSecond: 1048576
                        requestPercentage: 12.5
                        perPrincipal:
                          fetchBytesPerSecond: 2097152
                """).render();

        String file = rendered.get("ConfigMap", GATEWAY_CONFIG_MAP).path("data").path("gateway.yaml").asText();
        TenantQuotas quotas = GatewayFile.parse("chart", file.getBytes(StandardCharsets.UTF_8)).quotas().get("team-a");
        assertEquals(new QuotaLimits(1_048_576, 0, 12.5), quotas.cluster());
        assertEquals(new QuotaLimits(0, 2_097_152), quotas.of(new KafkaPrincipal("User", "alice")));
        assertRefused(ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  virtualClusters:
                    - name: team-a
                      principals: ["User:alice"]
                      quotas: {produceBytesPerSec: 5}
                """), "produceBytesPerSec");
    }

    @Test
    void theFileIsMountedReadOnlyAndNamedToTheProxy() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml(TWO_TENANTS).render();

        assertEquals(Optional.of("/etc/kafscale/gateway/gateway.yaml"),
                rendered.effectiveSetting("KAFSCALE_PROXY_GATEWAY_FILE"));
        JsonNode mount = named(rendered.container().path("volumeMounts"), "gateway");
        assertEquals("/etc/kafscale/gateway", mount.path("mountPath").asText());
        assertTrue(mount.path("readOnly").asBoolean());
        assertEquals(GATEWAY_CONFIG_MAP,
                named(rendered.podSpec().path("volumes"), "gateway").path("configMap").path("name").asText());
    }

    @Test
    void aChangeTheProxyAppliesLiveRollsNoPodAndOneItAppliesAtAStartRollsThem() {
        String before = gatewayChecksum(ChartRenderer.chart().valuesYaml(TWO_TENANTS).render());
        // A virtual cluster placed by principal is reloaded by the running proxy
        String live = gatewayChecksum(ChartRenderer.chart()
                .valuesYaml(TWO_TENANTS.replace("User:bob", "User:carol")).render());
        // The audit trail's sinks are opened at start
        String atStart = gatewayChecksum(ChartRenderer.chart()
                .valuesYaml(TWO_TENANTS + "  audit: {stdout: true}\n").render());

        assertFalse(before.isEmpty());
        assertEquals(before, live);
        assertNotEquals(before, atStart);
    }

    @Test
    void anExistingConfigMapIsMountedAndNamedWithItsKey() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  existingConfigMap:
                    name: tenants
                    key: virtual-clusters.yaml
                """).render();

        assertEquals(Optional.of("/etc/kafscale/gateway/virtual-clusters.yaml"),
                rendered.effectiveSetting("KAFSCALE_PROXY_GATEWAY_FILE"));
        assertEquals("tenants", named(rendered.podSpec().path("volumes"), "gateway").path("configMap").path("name").asText());
        assertTrue(named(rendered.container().path("volumeMounts"), "gateway").path("readOnly").asBoolean());
        // The user's ConfigMap is theirs: the chart renders none, and has no content to checksum
        assertEquals(1, rendered.kinds().stream().filter("ConfigMap"::equals).count());
        assertTrue(annotations(rendered).path("checksum/gateway").isMissingNode());
    }

    @Test
    void requiredClientCertificatesAreEnoughAuthentication() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml("""
                tls:
                  enabled: true
                  secretName: proxy-tls
                  clientAuth: required
                gateway:
                  virtualClusters:
                    - name: team-a
                      principals: ["User:CN=orders-service"]
                """).render();

        assertTrue(rendered.effectiveSetting("KAFSCALE_PROXY_GATEWAY_FILE").isPresent());
    }

    @Test
    void theGatewayFileGivenTwiceIsRefused() {
        assertRefused(ChartRenderer.chart().valuesYaml(TWO_TENANTS)
                        .set("config.KAFSCALE_PROXY_GATEWAY_FILE", "/etc/gateway.yaml"),
                "gateway is set, and so is config.KAFSCALE_PROXY_GATEWAY_FILE");
        assertRefused(ChartRenderer.chart().valuesYaml(TWO_TENANTS).set("gateway.existingConfigMap.name", "tenants"),
                "gateway's sections (virtualClusters, audit, validation, encryption, lfsResolve) and gateway.existingConfigMap.name are all set");
        assertRefused(ChartRenderer.chart().valuesYaml(SASL).set("gateway.existingConfigMap.name", "tenants")
                        .set("gateway.existingSecret.name", "tenants"),
                "gateway.existingConfigMap.name and gateway.existingSecret.name are all set");
    }

    @Test
    void virtualClustersPlacedByPrincipalWithoutAuthenticatingClientsAreRefused() {
        assertRefused(ChartRenderer.chart().valuesYaml("""
                gateway:
                  virtualClusters:
                    - name: team-a
                      principals: ["User:alice"]
                """), "gateway.virtualClusters placed by principals need clients that authenticate");
    }

    @Test
    void aTenantWithAListenerOfItsOwnGetsItsPortsOnTheServiceAndNeedsNoSasl() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml("""
                advertiseMode: ports
                brokerPorts: {base: 9100, count: 3}
                gateway:
                  virtualClusters:
                    - name: team-a
                      listener: "0.0.0.0:9093"
                      brokerPortBase: 9200
                """).render();

        // The listener's port and its three broker ports, in the container and on the Service
        List<String> expected = List.of("tenant-0:9093", "t0-b0:9200", "t0-b1:9201", "t0-b2:9202");
        assertTrue(portsOf(rendered.container().path("ports"), "containerPort").containsAll(expected),
                rendered.container().path("ports").toString());
        assertTrue(portsOf(rendered.service().path("spec").path("ports"), "port").containsAll(expected),
                rendered.service().path("spec").path("ports").toString());
        // ... and the file the proxy reads places clients by that listener
        String file = rendered.get("ConfigMap", GATEWAY_CONFIG_MAP).path("data").path("gateway.yaml").asText();
        assertTrue(GatewayFile.parse("chart", file.getBytes(StandardCharsets.UTF_8)).placesEveryClientByListener());
        assertRefused(ChartRenderer.chart().valuesYaml("""
                advertiseMode: ports
                gateway:
                  virtualClusters:
                    - name: team-a
                      listener: "0.0.0.0:9093"
                """), "gateway.virtualClusters[0].listener in advertiseMode ports needs brokerPortBase");
    }

    @Test
    void auditValidationAndEncryptionAloneMakeAFileTheProxyReads() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml("""
                gateway:
                  audit: {stdout: true}
                  validation:
                    - topics: "orders\\\\..*"
                      value: {format: json}
                """).render();

        String file = rendered.get("ConfigMap", GATEWAY_CONFIG_MAP).path("data").path("gateway.yaml").asText();
        var gateway = GatewayFile.parse("chart", file.getBytes(StandardCharsets.UTF_8));
        assertTrue(gateway.audit().orElseThrow().stdout());
        assertFalse(gateway.validation().isEmpty());
        assertEquals(Optional.of("/etc/kafscale/gateway/gateway.yaml"),
                rendered.effectiveSetting("KAFSCALE_PROXY_GATEWAY_FILE"));
        assertFalse(annotations(rendered).path("checksum/gateway").asText().isEmpty());
    }

    @Test
    void lfsResolveRulesReachTheProxyAndAChangeToThemRollsNoPod() {
        String values = """
                lfs:
                  enabled: true
                  s3:
                    bucket: blobs
                    region: us-east-1
                gateway:
                  lfsResolve:
                    - topics: "media\\\\..*"
                      principals: ["User:reader"]
                """;
        RenderedChart rendered = ChartRenderer.chart().valuesYaml(values).render();

        String file = rendered.get("ConfigMap", GATEWAY_CONFIG_MAP).path("data").path("gateway.yaml").asText();
        var gateway = GatewayFile.parse("chart", file.getBytes(StandardCharsets.UTF_8));
        assertEquals(1, gateway.lfsResolve().size());
        // Resolution rules are reloaded by the running proxy: only restart-only parts are in the checksum
        String changed = gatewayChecksum(ChartRenderer.chart()
                .valuesYaml(values.replace("User:reader", "User:other")).render());
        assertEquals(gatewayChecksum(rendered), changed);
    }

    @Test
    void anExistingSecretIsMountedAndNamedWithItsKey() {
        RenderedChart rendered = ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  existingSecret:
                    name: tenants-with-keys
                    key: gateway.yaml
                """).render();

        assertEquals(Optional.of("/etc/kafscale/gateway/gateway.yaml"),
                rendered.effectiveSetting("KAFSCALE_PROXY_GATEWAY_FILE"));
        JsonNode volume = named(rendered.podSpec().path("volumes"), "gateway");
        assertEquals("tenants-with-keys", volume.path("secret").path("secretName").asText());
        assertTrue(volume.path("configMap").isMissingNode());
        assertTrue(named(rendered.container().path("volumeMounts"), "gateway").path("readOnly").asBoolean());
    }

    @Test
    void anSniHostSuffixOutsideSniModeIsRefused() {
        assertRefused(ChartRenderer.chart().valuesYaml("""
                gateway:
                  virtualClusters:
                    - name: team-a
                      sniHostSuffix: team-a.kafka.example.com
                """), "gateway.virtualClusters[0].sniHostSuffix needs advertiseMode sni");
    }

    @Test
    void malformedVirtualClustersAreRefusedByTheSchema() {
        assertRefused(ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  virtualClusters:
                    - principals: ["User:alice"]
                """), "name");
        assertRefused(ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  virtualClusters:
                    - name: team-a
                      principals: "User:alice"
                """), "principals");
        assertRefused(ChartRenderer.chart().valuesYaml(SASL + """
                gateway:
                  virtualClusters:
                    - name: team-a
                      principals: ["User:alice"]
                      topicPrefix: 7
                """), "topicPrefix");
    }

    @Test
    void defaultsRenderNoGateway() {
        RenderedChart rendered = ChartRenderer.chart().render();

        assertEquals(1, rendered.kinds().stream().filter("ConfigMap"::equals).count());
        assertTrue(rendered.effectiveSetting("KAFSCALE_PROXY_GATEWAY_FILE").isEmpty());
        assertFalse(names(rendered.podSpec().path("volumes")).contains("gateway"));
        assertFalse(names(rendered.container().path("volumeMounts")).contains("gateway"));
        assertTrue(annotations(rendered).path("checksum/gateway").isMissingNode());
    }

    private static JsonNode annotations(RenderedChart rendered) {
        return rendered.get("Deployment").path("spec").path("template").path("metadata").path("annotations");
    }

    private static String gatewayChecksum(RenderedChart rendered) {
        return annotations(rendered).path("checksum/gateway").asText();
    }

    /** Each port as name:number, the number from {@code field}. */
    private static List<String> portsOf(JsonNode ports, String field) {
        return StreamSupport.stream(ports.spliterator(), false)
                .map(p -> p.path("name").asText() + ":" + p.path(field).asInt()).toList();
    }

    private static List<String> names(JsonNode list) {
        return StreamSupport.stream(list.spliterator(), false).map(n -> n.path("name").asText()).toList();
    }

    private static JsonNode named(JsonNode list, String name) {
        return StreamSupport.stream(list.spliterator(), false).filter(n -> name.equals(n.path("name").asText()))
                .findFirst().orElseThrow(() -> new AssertionError("No " + name + " in " + list));
    }

    private static void assertRefused(ChartRenderer chart, String messagePart) {
        RuntimeException refused = assertThrows(RuntimeException.class, chart::renderText);
        assertTrue(refused.getMessage().contains(messagePart),
                () -> "Expected '" + messagePart + "' in: " + refused.getMessage());
    }
}
