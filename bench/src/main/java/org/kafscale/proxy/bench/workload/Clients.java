package org.kafscale.proxy.bench.workload;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka clients every workload uses, configured identically for the direct and the proxied
 * run: only {@code bootstrap.servers} differs, so the ratio measures the proxy and nothing else.
 */
final class Clients {
    /** Kafka 4's default linger: what an untuned producer does. */
    static final int LINGER_MS = 5;

    private Clients() {
    }

    /** acks=all (idempotent, Kafka's default), with {@code lingerMs} of batching. */
    static KafkaProducer<byte[], byte[]> producer(String bootstrap, int lingerMs) {
        return producer(bootstrap, lingerMs, Map.of());
    }

    /** Like {@link #producer(String, int)}, with {@code security} (TLS settings, say) added. */
    static KafkaProducer<byte[], byte[]> producer(String bootstrap, int lingerMs, Map<String, Object> security) {
        Properties p = new Properties();
        p.putAll(security);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * A consumer without a group (partitions are assigned by the workload). It resets to the
     * earliest offset when its position is gone: the bench's topics are bounded in bytes, so the
     * brokers delete the oldest segments while a round reads from the beginning, and with Kafka's
     * default (latest) a consumer on a deleted segment jumped to the end and waited there for
     * records that never came (two full runs failed a consume round's deadline that way).
     */
    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        p.putAll(overrides);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
