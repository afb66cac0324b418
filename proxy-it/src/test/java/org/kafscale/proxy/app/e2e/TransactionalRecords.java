package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/** Transactional producers and isolation-level reads, for the tests of transactions through the proxy. */
final class TransactionalRecords {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private TransactionalRecords() {
    }

    static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties props = RecordRoundTrip.idempotentProducerProperties(bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return new KafkaProducer<>(props);
    }

    /** Sends {@code count} records round-robin over the partitions and waits until all are acknowledged. */
    static Map<Integer, List<String>> sendAll(KafkaProducer<String, String> producer, String topic, int partitions,
                                              String prefix, int count) throws Exception {
        Map<Integer, List<String>> sent = new HashMap<>();
        List<Future<?>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int partition = i % partitions;
            String value = prefix + i;
            sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
            acks.add(producer.send(new ProducerRecord<>(topic, partition, "k" + i, value)));
        }
        for (Future<?> ack : acks) {
            ack.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        return sent;
    }

    /**
     * Waits until the coordinators have written the commit and abort markers: then no transaction
     * is open, and the last stable offset of every partition is its high watermark.
     */
    static void awaitMarkers(KafkaCluster cluster, String topic, int partitions) {
        List<TopicPartition> all = RecordRoundTrip.partitionsOf(topic, partitions);
        Eventually.await(DEADLINE, "last stable offsets to reach the high watermarks of " + topic, () -> {
            Map<TopicPartition, Long> stable = endOffsets(cluster, all, IsolationLevel.READ_COMMITTED);
            Map<TopicPartition, Long> high = endOffsets(cluster, all, IsolationLevel.READ_UNCOMMITTED);
            assertEquals(high, stable, "last stable offsets vs high watermarks");
        });
    }

    /** End offsets straight from the cluster (not through the proxy). */
    static Map<TopicPartition, Long> endOffsets(KafkaCluster cluster, List<TopicPartition> partitions,
                                                IsolationLevel isolation) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = partitions.stream()
                .collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
        return cluster.admin().listOffsets(latest, new ListOffsetsOptions(isolation)).all()
                .get(DEADLINE.toSeconds(), TimeUnit.SECONDS).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** Reads every partition from the start at {@code isolation} until the position is the end of the log. */
    static Map<Integer, List<String>> readToEnd(KafkaCluster cluster, String bootstrap, String topic, int partitions,
                                                IsolationLevel isolation) throws Exception {
        List<TopicPartition> all = RecordRoundTrip.partitionsOf(topic, partitions);
        Map<TopicPartition, Long> ends = endOffsets(cluster, all, IsolationLevel.READ_UNCOMMITTED);
        Properties props = RecordRoundTrip.consumerProperties(bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                isolation == IsolationLevel.READ_COMMITTED ? "read_committed" : "read_uncommitted");
        Map<Integer, List<String>> received = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Eventually.await(DEADLINE, isolation + " consumer to reach the end of " + all, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    received.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.value());
                }
                for (TopicPartition tp : all) {
                    assertEquals(ends.get(tp), consumer.position(tp), "position in " + tp);
                }
            });
        }
        return received;
    }
}
