package org.kafscale.proxy.bench.workload;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Closed-loop produce of {@code records} records of {@code recordBytes} as fast as the path allows. */
public final class ProduceThroughput {
    private ProduceThroughput() {
    }

    /** Records per second, from the first send to the last acknowledgement. */
    public static double run(String bootstrap, String topic, int records, int recordBytes) {
        return run(bootstrap, Map.of(), topic, records, recordBytes);
    }

    /** Like {@link #run(String, String, int, int)}, the clients configured with {@code security} too. */
    public static double run(String bootstrap, Map<String, Object> security, String topic, int records,
                             int recordBytes) {
        byte[] value = new byte[recordBytes];
        ThreadLocalRandom.current().nextBytes(value);
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Clients.LINGER_MS, security)) {
            // Metadata is fetched before the clock starts: connection set-up is not throughput.
            producer.partitionsFor(topic);
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, value), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
            long elapsed = System.nanoTime() - start;
            ClientTraffic.add(bootstrap, producer.metrics());
            if (failure.get() != null) {
                throw new IllegalStateException("produce failed", failure.get());
            }
            return records / (elapsed / 1e9);
        }
    }
}
