package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;
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
    @ValueSource(strings = {"brokers", "single", "ports"})
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

    /**
     * Single and ports modes: librdkafka identifies brokers by address, so in brokers mode (every id
     * at the proxy's one address) it merges them and fetches from one id only. Ports mode gives each
     * id an address of its own.
     */
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "ports"})
    void kcatProducesAndConsumesAcrossThreeLeaders(String mode) {
        // Given: three partitions, one led by each broker
        String topic = "kcat-spread-" + mode;
        List<Integer> brokers = KAFKA.cluster().brokerIds();
        KAFKA.cluster().createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            lines.add("k" + i + ":v" + i);
        }
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When: librdkafka produces with keys (so records spread over the three partitions) and reads back
            Kcat.Result produced = Kcat.produce(proxy.bootstrap(), topic, lines);
            Kcat.Result consumed = Kcat.consume(proxy.bootstrap(), topic, 30);
            // Then: every value once, whichever broker led its partition
            assertTrue(produced.succeeded(), produced.stderr());
            assertTrue(consumed.succeeded(), consumed.stderr());
            Set<String> expected = new HashSet<>();
            lines.forEach(l -> expected.add(l.substring(l.indexOf(':') + 1)));
            assertEquals(30, consumed.lines().size(), consumed.stdout());
            assertEquals(expected, new HashSet<>(consumed.lines()));
        }
    }
}
