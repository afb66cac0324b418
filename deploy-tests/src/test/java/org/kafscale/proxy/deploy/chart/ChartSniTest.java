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

    @Test
    void anIngressWithTlsPassthroughRoutesEveryNameClientsSendToTheKafkaPort() {
        RenderedChart rendered = withTenant(sniMode().set("sni.expose", "ingress")
                .set("sni.ingress.className", "nginx")).render();

        JsonNode ingress = rendered.get("Ingress");
        assertEquals("true", ingress.path("metadata").path("annotations")
                .path("nginx.ingress.kubernetes.io/ssl-passthrough").asText());
        assertEquals("nginx", ingress.path("spec").path("ingressClassName").asText());
        List<String> hosts = StreamSupport.stream(ingress.path("spec").path("rules").spliterator(), false)
                .map(rule -> rule.path("host").asText()).toList();
        assertEquals(List.of("kafka.example.com", "*.kafka.example.com", "*.team-a.example.com"), hosts);
        assertTrue(StreamSupport.stream(ingress.path("spec").path("rules").spliterator(), false)
                .allMatch(rule -> "kafka".equals(rule.path("http").path("paths").path(0).path("backend")
                        .path("service").path("port").path("name").asText())));
    }

    @Test
    void aTlsRouteAttachesToTheGivenGatewayWithEveryName() {
        RenderedChart rendered = withTenant(sniMode().set("sni.expose", "tlsRoute")
                .set("sni.tlsRoute.parentRefs[0].name", "edge")
                .set("sni.tlsRoute.parentRefs[0].sectionName", "kafka-passthrough")).render();

        JsonNode route = rendered.get("TLSRoute");
        assertEquals("edge", route.path("spec").path("parentRefs").path(0).path("name").asText());
        List<String> hostnames = StreamSupport.stream(route.path("spec").path("hostnames").spliterator(), false)
                .map(JsonNode::asText).toList();
        assertEquals(List.of("kafka.example.com", "*.kafka.example.com", "*.team-a.example.com"), hostnames);
        assertEquals(9092, route.path("spec").path("rules").path(0).path("backendRefs").path(0).path("port").asInt());
        // The certificate covers the tenant's names too
        RenderedChart withCertificate = withTenant(sniMode().set("tls.secretName", "").set("tls.certManager.enabled", true)
                .set("tls.certManager.issuerRef.name", "letsencrypt")).render();
        assertTrue(withCertificate.get("Certificate").path("spec").path("dnsNames").toString()
                .contains("*.team-a.example.com"));
    }

    @Test
    void anEdgeRouteOutsideSniModeOrWithoutAGatewayIsRefused() {
        assertRefused(ChartRenderer.chart().set("sni.expose", "ingress"), "sni.expose ingress needs advertiseMode sni");
        assertRefused(sniMode().set("sni.expose", "tlsRoute"), "sni.expose tlsRoute needs sni.tlsRoute.parentRefs");
        assertFalse(sniMode().render().kinds().contains("Ingress"));
    }

    /** A virtual cluster placed by TLS server name, on a proxy whose clients authenticate. */
    private static ChartRenderer withTenant(ChartRenderer chart) {
        return chart.set("sasl.mechanisms[0]", "PLAIN").set("sasl.credentialsSecret", "users")
                .set("gateway.virtualClusters[0].name", "team-a")
                .set("gateway.virtualClusters[0].sniHostSuffix", "team-a.example.com");
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
