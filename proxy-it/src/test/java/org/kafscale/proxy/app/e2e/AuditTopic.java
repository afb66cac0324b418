package org.kafscale.proxy.app.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The audit events in a one-partition audit topic, read straight from the broker. */
final class AuditTopic {
    private static final ObjectMapper JSON = new ObjectMapper();

    private AuditTopic() {
    }

    /** Every event of {@code topic} up to its end now, read with {@code client} (bootstrap and security). */
    static List<JsonNode> events(Map<String, Object> client, String topic) {
        Map<String, Object> props = new HashMap<>(client);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<JsonNode> events = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
                    try {
                        events.add(JSON.readTree(new String(record.value(), StandardCharsets.UTF_8)));
                    } catch (IOException e) {
                        throw new UncheckedIOException("not an audit event: " + record, e);
                    }
                }
            }
        }
        return events;
    }
}
