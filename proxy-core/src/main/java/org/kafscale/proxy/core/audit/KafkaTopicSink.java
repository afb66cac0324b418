package org.kafscale.proxy.core.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * JSON lines as records of a topic of the backend cluster, written by the proxy's own
 * KafkaProducer (its configuration, bootstrap and security, from {@code config}: the proxy's own
 * settings towards the brokers). A batch counts as written once every record of it is
 * acknowledged. The producer is made at the first write, on the sink's thread: start-up never
 * waits for the brokers.
 */
public final class KafkaTopicSink implements AuditSink {
    private final String topic;
    private final Supplier<Map<String, Object>> config;
    private KafkaProducer<byte[], byte[]> producer;

    /** @param config the producer's configuration, asked for when the producer is made */
    public KafkaTopicSink(String topic, Supplier<Map<String, Object>> config) {
        this.topic = topic;
        this.config = config;
    }

    @Override
    public String name() {
        return "topic";
    }

    @Override
    public void write(List<String> lines) throws IOException {
        KafkaProducer<byte[], byte[]> out = producer();
        List<Future<RecordMetadata>> sent = new ArrayList<>(lines.size());
        try {
            for (String line : lines) {
                Future<RecordMetadata> each = out.send(new ProducerRecord<>(topic, line.getBytes(StandardCharsets.UTF_8)));
                if (each.isDone()) {
                    // Failed at once (no metadata within max.block.ms): the rest of the batch would wait as long each.
                    each.get();
                }
                sent.add(each);
            }
            out.flush();
            for (Future<RecordMetadata> each : sent) {
                each.get();
            }
        } catch (ExecutionException e) {
            throw new IOException("writing to topic " + topic + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing to topic " + topic, e);
        } catch (RuntimeException e) {
            throw new IOException("writing to topic " + topic + " failed: " + e, e);
        }
    }

    /** The topic's partitions can be looked up: its leader is known again. */
    @Override
    public void probe() throws IOException {
        try {
            producer().partitionsFor(topic);
        } catch (RuntimeException e) {
            throw new IOException("topic " + topic + " is not available: " + e, e);
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(config.get(), new ByteArraySerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }
}
