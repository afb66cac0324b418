package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;

/** A cluster whose brokers each get properties of their own, such as their rack. */
class KafkaClusterBrokerPropertiesIT {

    @Test
    void eachBrokerRunsWithItsOwnProperties() throws Exception {
        // Given two brokers, each in a rack of its own
        try (KafkaCluster cluster = KafkaCluster.start(2, Map.of(
                0, Map.of("broker.rack", "rack-a"),
                1, Map.of("broker.rack", "rack-b")))) {
            // When the cluster is described
            Map<Integer, String> racks = new TreeMap<>();
            for (Node node : cluster.admin().describeCluster().nodes().get()) {
                racks.put(node.id(), node.rack());
            }

            // Then each broker shows its rack
            assertEquals(Map.of(0, "rack-a", 1, "rack-b"), racks);
        }
    }

    @Test
    void propertiesForABrokerTheClusterDoesNotHaveAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> KafkaCluster.start(1, Map.of(1, Map.of("broker.rack", "r"))));
    }
}
