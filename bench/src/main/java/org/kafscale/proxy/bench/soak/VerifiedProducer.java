package org.kafscale.proxy.bench.soak;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An idempotent acks=all producer sending {@code <name>:<seq>} at a fixed rate (open loop) through
 * one proxy replica, keeping every acknowledgement (partition and offset by sequence number): what
 * the brokers promised to keep, for {@link Checks} to find in the log at the end.
 */
final class VerifiedProducer implements Workload, AutoCloseable {
    /** What the brokers acknowledged for one record. */
    record Ack(int partition, long offset) {
    }

    private final String name;
    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private final Map<Long, Ack> acked = new ConcurrentHashMap<>();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong lastAckNanos = new AtomicLong(System.nanoTime());
    private final Recorder latencyMicros = new Recorder(3);
    private volatile boolean stopped;

    VerifiedProducer(String name, String bootstrap, String topic, int recordsPerSecond) {
        this.name = name;
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.CLIENT_ID_CONFIG, name,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000),
                new StringSerializer(), new StringSerializer());
        this.thread = new Thread(() -> run(topic, recordsPerSecond), name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run(String topic, int recordsPerSecond) {
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
        long next = System.nanoTime();
        for (long seq = 0; !stopped; seq++) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            next += intervalNanos;
            long sent = System.nanoTime();
            long number = seq;
            try {
                producer.send(new ProducerRecord<>(topic, name + "-" + (seq % 97), name + ":" + seq), (metadata, error) -> {
                    if (error != null) {
                        failed.incrementAndGet();
                        return;
                    }
                    long now = System.nanoTime();
                    acked.put(number, new Ack(metadata.partition(), metadata.offset()));
                    lastAckNanos.set(now);
                    latencyMicros.recordValue(Math.max(1, Math.min((now - sent) / 1000, 600_000_000L)));
                });
            } catch (RuntimeException e) {
                failed.incrementAndGet(); // buffer full past max.block.ms: not sent, so not promised
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** Acknowledgements by sequence number; complete once {@link #close()} returned. */
    Map<Long, Ack> acked() {
        return acked;
    }

    long failed() {
        return failed.get();
    }

    /** When a record was last acknowledged. */
    @Override
    public long lastSuccessNanos() {
        return lastAckNanos.get();
    }

    /** Acknowledged-send latency since the last call, in microseconds (for the timeline). */
    org.HdrHistogram.Histogram latencySinceLastCall() {
        return latencyMicros.getIntervalHistogram();
    }

    /** Stops sending and waits for every record sent to be acknowledged or failed. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
        producer.close(Duration.ofMinutes(3));
    }
}
