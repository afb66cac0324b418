package org.kafscale.proxy.bench.workload;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Produce latency at a fixed rate, open loop: record {@code i} is due at {@code start + i/rate}
 * and its latency runs from that due time, not from when {@code send} was called. A stall in the
 * path therefore counts against every record that should have been sent during it (no
 * coordinated omission), and the generator never slows down to match the path. The producer is
 * the throughput workload's (same linger), so "half the saturation rate" means half of what that
 * same producer sustained.
 */
public final class ProduceLatency {
    private ProduceLatency() {
    }

    /**
     * @param warmup records due in this first stretch are sent but not recorded
     */
    public static LatencyStats run(String bootstrap, String topic, double recordsPerSecond, Duration warmup,
                                   Duration measured, int recordBytes) {
        byte[] value = new byte[recordBytes];
        ThreadLocalRandom.current().nextBytes(value);
        // Written only from the producer's I/O thread (callbacks), read after close.
        Histogram micros = LatencyStats.newHistogram();
        AtomicReference<Exception> failure = new AtomicReference<>();
        double intervalNanos = 1e9 / recordsPerSecond;
        long total = (long) (recordsPerSecond * (warmup.toNanos() + measured.toNanos()) / 1e9);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Clients.LINGER_MS)) {
            producer.partitionsFor(topic);
            long start = System.nanoTime();
            long recordFrom = start + warmup.toNanos();
            for (long i = 0; i < total; i++) {
                long due = start + (long) (i * intervalNanos);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                producer.send(new ProducerRecord<>(topic, value), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else if (due >= recordFrom) {
                        micros.recordValue(Math.min((System.nanoTime() - due) / 1000, LatencyStats.HIGHEST_MICROS));
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("produce failed", failure.get());
        }
        return LatencyStats.of(micros);
    }
}
