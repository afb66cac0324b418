package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyPartitionerTest {

    @ParameterizedTest(name = "key {0}")
    @ValueSource(strings = {"", "a", "order-17", "a much longer key than most producers use for anything"})
    void aKeyGoesToThePartitionKafkasProducerPicksForIt(String key) {
        // Given a key and a topic of 7 partitions
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);

        // When the proxy picks the partition
        int partition = KeyPartitioner.partitionOf(bytes, 7);

        // Then it is the one Kafka's producer picks
        assertEquals(BuiltInPartitioner.partitionForKey(bytes, 7), partition);
    }
}
