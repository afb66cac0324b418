package org.kafscale.proxy.bench.workload;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A trickle of records, round robin over every partition (so over every broker), each carrying
 * its number and the time it was due; a consumer in the same JVM records how long each took to arrive. The
 * consumer keeps Kafka's default fetch wait (500 ms), so a proxy that waits for the slowest
 * broker's long poll shows here.
 */
public final class EndToEndLatency {
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private EndToEndLatency() {
    }

    /**
     * @param warmup records due in this first stretch are consumed but not recorded (connections,
     *               the first fetch of every partition, JIT)
     */
    public static LatencyStats run(String bootstrap, String topic, double recordsPerSecond, Duration warmup,
                                   Duration measured) {
        Histogram micros = LatencyStats.newHistogram();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicReference<Exception> failure = new AtomicReference<>();
        long total = (long) (recordsPerSecond * (warmup.toNanos() + measured.toNanos()) / 1e9);
        long unrecorded = (long) (recordsPerSecond * warmup.toNanos() / 1e9);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap,
                Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500));
             KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, 0)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            producer.partitionsFor(topic);
            Thread generator = new Thread(() -> {
                try {
                    long start = System.nanoTime();
                    for (long i = 0; i < total; i++) {
                        long due = start + (long) (i * 1e9 / recordsPerSecond);
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        byte[] value = ByteBuffer.allocate(2 * Long.BYTES).putLong(i).putLong(due).array();
                        producer.send(new ProducerRecord<>(topic, (int) (i % partitions.size()), null, value));
                    }
                    producer.flush();
                } catch (RuntimeException e) {
                    failure.set(e);
                } finally {
                    producing.set(false);
                }
            }, "e2e-generator");
            generator.start();
            long seen = 0;
            long drainUntil = Long.MAX_VALUE;
            while (seen < total && System.nanoTime() < drainUntil) {
                for (var record : consumer.poll(Duration.ofMillis(100))) {
                    ByteBuffer value = ByteBuffer.wrap(record.value());
                    long index = value.getLong();
                    long due = value.getLong();
                    if (index >= unrecorded) {
                        micros.recordValue(Math.min((System.nanoTime() - due) / 1000, LatencyStats.HIGHEST_MICROS));
                    }
                    seen++;
                }
                if (!producing.get() && drainUntil == Long.MAX_VALUE) {
                    drainUntil = System.nanoTime() + DRAIN.toNanos();
                }
            }
            generator.join();
            if (failure.get() != null) {
                throw new IllegalStateException("produce failed", failure.get());
            }
            if (seen < total) {
                throw new IllegalStateException("consumed " + seen + " of " + total + " records");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return LatencyStats.of(micros);
    }
}
