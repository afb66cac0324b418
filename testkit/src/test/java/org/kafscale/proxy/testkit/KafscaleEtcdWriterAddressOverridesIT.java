package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A snapshot can list a broker at another address (a relay in front of it) without changing anything else. */
class KafscaleEtcdWriterAddressOverridesIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(2);
        cluster.createTopic("overridden", 2);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void overriddenBrokerIsListedAtTheGivenAddressAndTheOthersAtTheirOwn() throws Exception {
        // Given
        List<Integer> ids = cluster.brokerIds();
        int relayed = ids.get(1);
        // When
        String json = KafscaleEtcdWriter.snapshotJson(cluster, List.of("overridden"), Map.of(relayed, "127.0.0.1:45678"));
        // Then
        JsonNode brokers = MAPPER.readTree(json).get("Brokers");
        assertEquals(ids.size(), brokers.size());
        for (JsonNode broker : brokers) {
            int id = broker.get("NodeID").asInt();
            String address = broker.get("Host").asText() + ":" + broker.get("Port").asInt();
            assertEquals(id == relayed ? "127.0.0.1:45678" : cluster.brokerAddress(id), address, "broker " + id);
        }
    }

    @Test
    void withoutOverridesTheSnapshotIsTheUsualOne() {
        // When
        String json = KafscaleEtcdWriter.snapshotJson(cluster, List.of("overridden"), Map.of());
        // Then
        assertEquals(KafscaleEtcdWriter.snapshotJson(cluster, List.of("overridden")), json);
    }

    @Test
    void overrideForAnUnknownBrokerIsRefused() {
        // When / Then
        assertThrows(IllegalArgumentException.class,
                () -> KafscaleEtcdWriter.snapshotJson(cluster, List.of("overridden"), Map.of(99, "127.0.0.1:45678")));
    }

    @Test
    void overrideThatIsNotHostAndPortIsRefused() {
        // When / Then
        assertThrows(IllegalArgumentException.class,
                () -> KafscaleEtcdWriter.snapshotJson(cluster, List.of("overridden"), Map.of(cluster.brokerIds().get(0), "no-port")));
    }
}
