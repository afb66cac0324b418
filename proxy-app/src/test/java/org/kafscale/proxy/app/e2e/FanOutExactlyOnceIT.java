package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * A large volume through the proxy's fan-out: twelve partitions, four led by each of three
 * brokers, so that in single mode nearly every Produce and Fetch is split in three and merged,
 * and in brokers mode the clients' own per-broker requests pass through. Nothing may be lost,
 * duplicated or reordered within a partition.
 */
class FanOutExactlyOnceIT {
    private static final int PARTITIONS = 12;
    private static final int RECORDS = 100_000;

    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void hundredThousandRecordsOverTwelvePartitionsOnThreeBrokersArriveExactlyOnceInOrder(String mode)
            throws Exception {
        // Given: twelve single-replica partitions, four led by each broker
        String topic = "fan-out-" + mode;
        cluster.createTopic(topic, RecordRoundTrip.leadersRoundRobin(cluster.brokerIds(), PARTITIONS));
        Map<Integer, Integer> fourEach = new HashMap<>();
        cluster.brokerIds().forEach(broker -> fourEach.put(broker, 4));
        assertEquals(fourEach, partitionsPerBroker(cluster.leaders(topic).values()), "partitions led by each broker");
        try (RunningProxy proxy = RunningProxy.start(cluster, mode)) {
            // When: an idempotent acks=all producer and a consumer group move them through the proxy
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, PARTITIONS, RECORDS);
            Map<Integer, List<String>> received =
                    RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), topic, "fan-out-group-" + mode, RECORDS);
            // Then
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
        }
    }

    private static Map<Integer, Integer> partitionsPerBroker(Collection<Integer> leaders) {
        Map<Integer, Integer> counts = new HashMap<>();
        leaders.forEach(broker -> counts.merge(broker, 1, Integer::sum));
        return counts;
    }
}
