package org.kafscale.proxy.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.testkit.KafkaCluster;

/** The topic sink against a real broker: lines become records; a topic that is not there is a failed write. */
class KafkaTopicSinkIT {
    @Test
    void writesEachLineAsARecordAndFailsWhileTheTopicIsMissing() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.start(1, Map.of(0, Map.of("auto.create.topics.enable", "false")))) {
            Map<String, Object> config = new HashMap<>();
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
            config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4_000);
            try (KafkaTopicSink sink = new KafkaTopicSink("audit", () -> config)) {
                // When the topic is missing: the write fails (at once for the rest of the batch), so does the probe
                assertThrows(IOException.class, () -> sink.write(List.of("{\"n\":1}", "{\"n\":2}", "{\"n\":3}")));
                assertThrows(IOException.class, sink::probe);

                cluster.createTopic("audit", 1);

                sink.probe();
                sink.write(List.of("{\"n\":4}", "{\"n\":5}"));
            }
            assertEquals(List.of("{\"n\":4}", "{\"n\":5}"), read(cluster));
        }
    }

    private static List<String> read(KafkaCluster cluster) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            TopicPartition partition = new TopicPartition("audit", 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<String> lines = new ArrayList<>();
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
                    lines.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
            return lines;
        }
    }
}
