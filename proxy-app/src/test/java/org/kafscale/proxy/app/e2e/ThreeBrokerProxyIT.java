package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A three-broker cluster whose partition leaders sit on different brokers, used through the proxy
 * in both advertise modes: in brokers mode clients group partitions by owner, so requests have
 * one owner; in single mode every Produce and Fetch is split across the three brokers.
 */
class ThreeBrokerProxyIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void javaProducerAndConsumerGroupMoveTenThousandRecordsAcrossThreeLeaders(String mode) throws Exception {
        // Given: six partitions, two led by each broker
        String topic = "spread-" + mode;
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        KAFKA.cluster().createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2),
                3, brokers.get(0), 4, brokers.get(1), 5, brokers.get(2)));
        assertEquals(3, new HashSet<>(KAFKA.cluster().leaders(topic).values()).size(), "leaders on three brokers");
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, 6, 10_000);
            Map<Integer, List<String>> received =
                    RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), topic, "spread-group-" + mode, 10_000);
            // Then
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
        }
    }
}
