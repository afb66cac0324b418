package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * advertiseMode ports with service.perBroker: each broker port on a Service of its own, at the
 * port Metadata advertises, while the main Service keeps the bootstrap port.
 */
class ChartPerBrokerServicesTest {
    private static final String BROKER_SERVICE = ChartRenderer.RELEASE + "-kafscale-proxy-broker-";

    private static ChartRenderer perBroker(String type) {
        return ChartRenderer.chart().set("advertiseMode", "ports").set("brokerPorts.base", 30200)
                .set("brokerPorts.count", 3).set("service.type", type).set("service.perBroker", true);
    }

    @Test
    void eachBrokerHasALoadBalancerOfItsOwnWithItsAdvertisedPort() {
        // Given three broker ports and one Service per broker
        RenderedChart rendered = perBroker("LoadBalancer").render();

        // Then each broker's Service forwards its port, the same number outside as inside, to every pod
        JsonNode podSelector = rendered.get("Deployment").path("spec").path("selector").path("matchLabels");
        for (int id = 0; id < 3; id++) {
            JsonNode spec = rendered.get("Service", BROKER_SERVICE + id).path("spec");
            assertEquals("LoadBalancer", spec.path("type").asText());
            assertEquals(Map.of("broker-" + id, 30200 + id), ChartDefaultsTest.servicePorts(spec));
            assertEquals("broker-" + id, spec.path("ports").get(0).path("targetPort").asText());
            assertEquals(podSelector, spec.path("selector"));
            assertEquals(30200 + id, ChartDefaultsTest.containerPort(rendered.container(), "broker-" + id));
        }
        // And the main Service keeps only the bootstrap port, so no port is on two load balancers
        assertEquals(Map.of("kafka", 9092), ChartDefaultsTest.servicePorts(rendered.service().path("spec")));
        assertEquals(List.of(BROKER_SERVICE + "0", BROKER_SERVICE + "1", BROKER_SERVICE + "2"), brokerServices(rendered));
        // And the proxy advertises the same ports as without per-broker Services
        assertEquals("30200", rendered.effectiveSetting("KAFSCALE_PROXY_BROKER_PORT_BASE").orElseThrow());
    }

    @Test
    void nodePortServicesUseTheAdvertisedPortOnEveryNode() {
        RenderedChart rendered = perBroker("NodePort").render();
        for (int id = 0; id < 3; id++) {
            JsonNode port = rendered.get("Service", BROKER_SERVICE + id).path("spec").path("ports").get(0);
            assertEquals(30200 + id, port.path("nodePort").asInt());
        }
    }

    @Test
    void loadBalancersShareTheAddressTheyAreGiven() {
        // Given one address for every broker's load balancer, and an annotation to share it
        RenderedChart rendered = perBroker("LoadBalancer").valuesYaml("""
                service:
                  perBrokerLoadBalancerIP: 203.0.113.10
                  perBrokerAnnotations:
                    metallb.universe.tf/allow-shared-ip: kafka
                  annotations:
                    team: streaming
                """).render();

        // Then each per-broker Service asks for it, with its own and the Service's annotations
        for (int id = 0; id < 3; id++) {
            JsonNode service = rendered.get("Service", BROKER_SERVICE + id);
            assertEquals("203.0.113.10", service.path("spec").path("loadBalancerIP").asText());
            assertEquals("kafka", service.path("metadata").path("annotations").path("metallb.universe.tf/allow-shared-ip").asText());
            assertEquals("streaming", service.path("metadata").path("annotations").path("team").asText());
            assertEquals(String.valueOf(id), service.path("metadata").path("labels").path("kafscale.io/broker-id").asText());
        }
        assertTrue(rendered.service().path("metadata").path("annotations").path("metallb.universe.tf/allow-shared-ip")
                .isMissingNode(), "the per-broker annotations stay off the main Service");
    }

    @Test
    void perBrokerManifestsPassYamllint() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "rendered"));
        Path rendered = Files.writeString(dir.resolve("per-broker.yaml"), perBroker("LoadBalancer")
                .set("service.perBrokerLoadBalancerIP", "203.0.113.10").renderText());
        Yamllint.Result result = Yamllint.check(List.of(rendered));
        assertEquals(0, result.exitCode(), result.output());
    }

    @Test
    void withoutPerBrokerEveryBrokerPortStaysOnTheOneService() {
        RenderedChart rendered = ChartRenderer.chart().set("advertiseMode", "ports").set("brokerPorts.count", 2).render();
        assertEquals(List.of(), brokerServices(rendered));
        assertEquals(Map.of("kafka", 9092, "broker-0", 9100, "broker-1", 9101),
                ChartDefaultsTest.servicePorts(rendered.service().path("spec")));
    }

    @Test
    void perBrokerOutsidePortsModeIsRefused() {
        RuntimeException refused = assertThrows(RuntimeException.class,
                ChartRenderer.chart().set("service.perBroker", true)::renderText);
        assertTrue(refused.getMessage().contains("service.perBroker needs advertiseMode ports"), refused.getMessage());
    }

    @Test
    void perBrokerClusterIpServicesAreRefused() {
        RuntimeException refused = assertThrows(RuntimeException.class, perBroker("ClusterIP")::renderText);
        assertTrue(refused.getMessage().contains("service.perBroker needs service.type LoadBalancer or NodePort"),
                refused.getMessage());
    }

    private static List<String> brokerServices(RenderedChart rendered) {
        return rendered.all("Service").stream().map(s -> s.path("metadata").path("name").asText())
                .filter(name -> name.startsWith(BROKER_SERVICE)).toList();
    }
}
