package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Moves records through a bootstrap address with Java clients and checks what a user would:
 * every record arrives exactly once, in order within its partition.
 */
final class RecordRoundTrip {
    private static final Duration CONSUME_DEADLINE = Duration.ofSeconds(90);

    private RecordRoundTrip() {
    }

    /** Produces {@code count} records round-robin over {@code partitions} with an idempotent acks=all producer. */
    static Map<Integer, List<String>> produce(String bootstrap, String topic, int partitions, int count) throws Exception {
        return produce(bootstrap, topic, partitions, 0, count);
    }

    /**
     * Like {@link #produce(String, String, int, int)}, numbering the records from {@code first}
     * (record i goes to partition i % partitions), so that several calls produce distinct values.
     */
    static Map<Integer, List<String>> produce(String bootstrap, String topic, int partitions, int first, int count)
            throws Exception {
        return produce(bootstrap, topic, partitions, first, count, Map.of());
    }

    /** Like {@link #produce(String, String, int, int, int)}, with these producer settings besides (TLS, say). */
    static Map<Integer, List<String>> produce(String bootstrap, String topic, int partitions, int first, int count,
                                              Map<String, Object> settings) throws Exception {
        Properties props = idempotentProducerProperties(bootstrap);
        props.putAll(settings);
        Map<Integer, List<String>> sent = new HashMap<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = first; i < first + count; i++) {
                int partition = i % partitions;
                String value = "p" + partition + "-" + i;
                sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
                acks.add(producer.send(new ProducerRecord<>(topic, partition, "k" + i, value)));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        }
        return sent;
    }

    /** Consumes with a consumer group until {@code expected} records arrived, or fails at the deadline. */
    static Map<Integer, List<String>> consumeAsGroup(String bootstrap, String topic, String group, int expected) {
        return consumeAsGroup(bootstrap, topic, group, expected, Map.of());
    }

    /** Like {@link #consumeAsGroup(String, String, String, int)}, with these consumer settings besides (TLS, say). */
    static Map<Integer, List<String>> consumeAsGroup(String bootstrap, String topic, String group, int expected,
                                                     Map<String, Object> settings) {
        Properties props = consumerProperties(bootstrap);
        props.putAll(settings);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            Map<Integer, List<String>> received = pollUntil(consumer, expected);
            consumer.commitSync();
            return received;
        }
    }

    /** Reads partitions 0..partitions-1 from the start without a group until {@code expected} records arrived. */
    static Map<Integer, List<String>> consumeFromStart(String bootstrap, String topic, int partitions, int expected) {
        return consumeFromStart(bootstrap, topic, partitions, expected, Map.of());
    }

    /** Like {@link #consumeFromStart(String, String, int, int)}, with these consumer settings besides. */
    static Map<Integer, List<String>> consumeFromStart(String bootstrap, String topic, int partitions, int expected,
                                                       Map<String, Object> settings) {
        Properties props = consumerProperties(bootstrap);
        props.putAll(settings);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> assigned = partitionsOf(topic, partitions);
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            return pollUntil(consumer, expected);
        }
    }

    /** Polls until {@code expected} records arrived (values by partition), or fails at the deadline. */
    private static Map<Integer, List<String>> pollUntil(KafkaConsumer<String, String> consumer, int expected) {
        Map<Integer, List<String>> received = new HashMap<>();
        int total = 0;
        long deadline = System.nanoTime() + CONSUME_DEADLINE.toNanos();
        while (total < expected && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                received.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.value());
                total++;
            }
        }
        assertTrue(total >= expected, "consumed " + total + " of " + expected + " records before the deadline");
        return received;
    }

    /** Settings of an idempotent acks=all producer with String keys and values, as {@link #produce} uses. */
    static Properties idempotentProducerProperties(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return props;
    }

    /**
     * Settings of a producer that reports the first failed request instead of hiding it behind a
     * retry (acks=1, no retries, not idempotent, no linger), with String keys and values.
     */
    static Properties noRetriesProducerProperties(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.RETRIES_CONFIG, 0);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return props;
    }

    /** Settings of a consumer with String keys and values that starts at the earliest offset when it has none. */
    static Properties consumerProperties(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return props;
    }

    /** Every value in {@code topic}, read from {@code bootstrap} (the brokers, directly) to its end offsets. */
    static java.util.Set<String> readAllValues(String bootstrap, String topic, int partitions, Duration deadline) {
        java.util.Set<String> values = new java.util.HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProperties(bootstrap))) {
            List<TopicPartition> all = partitionsOf(topic, partitions);
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Map<TopicPartition, Long> end = consumer.endOffsets(all);
            org.kafscale.proxy.testkit.Eventually.await(deadline, "to read " + topic + " to its end", () -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
                return all.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return values;
    }

    /** Partitions 0..partitions-1 of {@code topic}. */
    static List<TopicPartition> partitionsOf(String topic, int partitions) {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        return all;
    }

    /** Partition p led by broker {@code brokers.get(p % brokers.size())}: an even spread, for createTopic. */
    static Map<Integer, Integer> leadersRoundRobin(List<Integer> brokers, int partitions) {
        Map<Integer, Integer> leaders = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            leaders.put(p, brokers.get(p % brokers.size()));
        }
        return leaders;
    }

    /** How many records partitions 0..partitions-1 of {@code topic} hold: the sum of their end offsets. */
    static long endOffsets(Admin admin, String topic, int partitions) throws Exception {
        long total = 0;
        for (TopicPartition partition : partitionsOf(topic, partitions)) {
            total += admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(30, TimeUnit.SECONDS).offset();
        }
        return total;
    }

    /** Every partition received exactly what was sent to it, in the same order. */
    static void assertExactlyOnceInOrder(Map<Integer, List<String>> sent, Map<Integer, List<String>> received) {
        assertEquals(sent.keySet(), received.keySet(), "partitions with records");
        for (Map.Entry<Integer, List<String>> partition : sent.entrySet()) {
            assertEquals(partition.getValue(), received.get(partition.getKey()),
                    "records of partition " + partition.getKey() + " (once each, in order)");
        }
    }

    /**
     * The first {@code count} records of partition 0 of {@code topic} as bytes, from the earliest
     * offset, read with {@code props} (bootstrap, security), waiting up to 30 s for them.
     */
    static List<ConsumerRecord<byte[], byte[]>> firstRecords(Properties props, String topic, int count) {
        return firstRecords(props, new TopicPartition(topic, 0), count);
    }

    /** The same for any one partition. */
    static List<ConsumerRecord<byte[], byte[]>> firstRecords(Properties props, TopicPartition partition, int count) {
        Properties settings = new Properties();
        settings.putAll(props);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertEquals(count, records.size(), "records of " + partition);
        return records;
    }
}
