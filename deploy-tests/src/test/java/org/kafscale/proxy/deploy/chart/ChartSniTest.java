package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.GatewayFile;

/** advertiseMode sni: the proxy gets both names, the certificate covers every broker, and what cannot work is refused. */
class ChartSniTest {

    private static ChartRenderer sniMode() {
        return ChartRenderer.chart().set("advertiseMode", "sni").set("tls.enabled", true)
                .set("tls.secretName", "proxy-tls").set("sni.bootstrapHost", "kafka.example.com")
                .set("sni.brokerHostPattern", "broker-$(nodeId).kafka.example.com");
    }

    @Test
    void theProxyIsToldBothNamesAndAdvertisesTheBootstrapHost() {
        RenderedChart rendered = sniMode().render();
        assertEquals("sni", rendered.effectiveSetting("KAFSCALE_PROXY_ADVERTISE_MODE").orElseThrow());
        assertEquals("kafka.example.com", rendered.effectiveSetting("KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST").orElseThrow());
        assertEquals("kafka.example.com", rendered.effectiveSetting("KAFSCALE_PROXY_ADVERTISED_HOST").orElseThrow());
        assertEquals("broker-$(nodeId).kafka.example.com",
                rendered.effectiveSetting("KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN").orElseThrow());
        // One port serves every broker: no broker port on the Service
        assertFalse(StreamSupport.stream(rendered.service().path("spec").path("ports").spliterator(), false)
                .anyMatch(p -> p.path("name").asText().startsWith("broker-")));
    }

    @Test
    void withoutABootstrapHostTheAdvertisedHostIsTheBootstrap() {
        RenderedChart rendered = sniMode().set("sni.bootstrapHost", "").set("advertisedHost", "edge.example.com")
                .render();
        assertEquals("edge.example.com", rendered.effectiveSetting("KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST").orElseThrow());
    }

    @Test
    void certManagersCertificateCoversTheBootstrapAndEveryBrokerByOneWildcard() {
        RenderedChart rendered = sniMode().set("tls.secretName", "").set("tls.certManager.enabled", true)
                .set("tls.certManager.issuerRef.name", "letsencrypt").render();
        List<String> names = StreamSupport.stream(
                rendered.get("Certificate").path("spec").path("dnsNames").spliterator(), false)
                .map(JsonNode::asText).toList();
        assertTrue(names.contains("kafka.example.com") && names.contains("*.kafka.example.com"), names.toString());
    }

    @Test
    void sniWithoutTlsOrWithoutAPatternIsRefused() {
        assertRefused(sniMode().set("tls.enabled", false).set("tls.secretName", ""), "advertiseMode sni needs tls.enabled");
        assertRefused(sniMode().set("sni.brokerHostPattern", "broker.kafka.example.com"),
                "advertiseMode sni needs sni.brokerHostPattern, with $(nodeId)");
    }

    @Test
    void aWildcardCannotCoverAnIdPastTheFirstLabel() {
        assertRefused(sniMode().set("tls.secretName", "").set("tls.certManager.enabled", true)
                        .set("tls.certManager.issuerRef.name", "letsencrypt")
                        .set("sni.brokerHostPattern", "kafka.b$(nodeId).example.com"),
                "needs $(nodeId) in the first label of sni.brokerHostPattern");
    }

    /** Two virtual clusters placed by TLS server name, one also restricted to a principal. */
    private static final String BY_NAME = """
            gateway:
              virtualClusters:
                - name: team-a
                  sniHostSuffix: team-a.kafka.example.com
                - name: team-b
                  sniHostSuffix: Team-B.kafka.example.com
                  principals: ["User:bob"]
            """;

    @Test
    void virtualClustersPlacedByTlsServerNameNeedNoAuthenticationAndTheirNamesAreCertified() {
        RenderedChart rendered = sniMode().valuesYaml(BY_NAME).set("tls.secretName", "")
                .set("tls.certManager.enabled", true).set("tls.certManager.issuerRef.name", "letsencrypt").render();

        String file = rendered.get("ConfigMap", ChartRenderer.RELEASE + "-kafscale-proxy-gateway").path("data")
                .path("gateway.yaml").asText();
        assertEquals(Map.of("team-a", "team-a.kafka.example.com", "team-b", "Team-B.kafka.example.com"),
                GatewayFile.parse("chart",
                        file.getBytes(StandardCharsets.UTF_8)).sniHostSuffixes());
        List<String> names = StreamSupport.stream(
                rendered.get("Certificate").path("spec").path("dnsNames").spliterator(), false)
                .map(JsonNode::asText).toList();
        assertTrue(names.containsAll(List.of("*.kafka.example.com", "*.team-a.kafka.example.com",
                "*.team-b.kafka.example.com")), names.toString());
    }

    @Test
    void anSniHostSuffixOutsideSniModeOrABadOneIsRefused() {
        assertRefused(ChartRenderer.chart().valuesYaml(BY_NAME), "gateway.virtualClusters[0].sniHostSuffix needs "
                + "advertiseMode sni");
        assertRefused(sniMode().valuesYaml(BY_NAME.replace("team-a.kafka.example.com", "team a")), "sniHostSuffix");
        // Without a suffix, a virtual cluster still needs principals
        assertRefused(sniMode().valuesYaml("""
                gateway:
                  virtualClusters:
                    - name: team-a
                """), "principals");
    }

    private static void assertRefused(ChartRenderer chart, String messagePart) {
        RuntimeException refused = assertThrows(RuntimeException.class, chart::renderText);
        assertTrue(refused.getMessage().contains(messagePart),
                () -> "Expected '" + messagePart + "' in: " + refused.getMessage());
    }
}
