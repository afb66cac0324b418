package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/** advertiseMode ports: the proxy, the container and the Service agree on one port per broker id. */
class ChartBrokerPortsTest {

    private static RenderedChart portsMode() {
        return ChartRenderer.chart().set("advertiseMode", "ports").set("brokerPorts.base", 9200)
                .set("brokerPorts.count", 3).render();
    }

    @Test
    void eachBrokerPortIsOnTheContainerTheServiceAndTheProxysSettings() {
        RenderedChart rendered = portsMode();
        Map<String, Integer> expected = new LinkedHashMap<>();
        expected.put("kafka", 9092);
        expected.put("broker-0", 9200);
        expected.put("broker-1", 9201);
        expected.put("broker-2", 9202);
        assertEquals(expected, ChartDefaultsTest.servicePorts(rendered.service().path("spec")));
        for (int id = 0; id < 3; id++) {
            assertEquals(9200 + id, ChartDefaultsTest.containerPort(rendered.container(), "broker-" + id));
        }
        assertEquals("ports", rendered.effectiveSetting("KAFSCALE_PROXY_ADVERTISE_MODE").orElseThrow());
        assertEquals("9200", rendered.effectiveSetting("KAFSCALE_PROXY_BROKER_PORT_BASE").orElseThrow());
        assertEquals("3", rendered.effectiveSetting("KAFSCALE_PROXY_BROKER_PORT_COUNT").orElseThrow());
    }

    @Test
    void nodePortServiceUsesTheAdvertisedPortOnEveryNode() {
        RenderedChart rendered = ChartRenderer.chart().set("advertiseMode", "ports").set("service.type", "NodePort")
                .set("brokerPorts.base", 30100).set("brokerPorts.count", 2).render();
        Map<String, Integer> nodePorts = new LinkedHashMap<>();
        rendered.service().path("spec").path("ports").forEach(p -> {
            if (p.path("name").asText().startsWith("broker-")) {
                nodePorts.put(p.path("name").asText(), p.path("nodePort").asInt());
            }
        });
        assertEquals(Map.of("broker-0", 30100, "broker-1", 30101), nodePorts);
    }

    @Test
    void networkPolicyAdmitsTheBrokerPortRangeWithTheKafkaPort() {
        RenderedChart rendered = ChartRenderer.chart().set("advertiseMode", "ports").set("brokerPorts.base", 9200)
                .set("brokerPorts.count", 3).set("networkPolicy.enabled", true).render();
        JsonNode kafkaRule = rendered.get("NetworkPolicy").path("spec").path("ingress").get(0).path("ports");
        assertEquals("kafka", kafkaRule.get(0).path("port").asText());
        assertEquals(9200, kafkaRule.get(1).path("port").asInt());
        assertEquals(9202, kafkaRule.get(1).path("endPort").asInt());
    }

    @Test
    void otherModesExposeNoBrokerPort() {
        RenderedChart rendered = ChartRenderer.chart().render();
        assertFalse(StreamSupport.stream(rendered.service().path("spec").path("ports").spliterator(), false)
                .anyMatch(p -> p.path("name").asText().startsWith("broker-")));
        assertFalse(rendered.effectiveSetting("KAFSCALE_PROXY_BROKER_PORT_BASE").isPresent());
    }
}
