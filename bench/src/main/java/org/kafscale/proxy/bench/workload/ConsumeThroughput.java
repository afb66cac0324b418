package org.kafscale.proxy.bench.workload;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Reads the first {@code records} records of a topic from the beginning, as fast as the path allows. */
public final class ConsumeThroughput {
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    private ConsumeThroughput() {
    }

    /** Bytes of record values per second, from the first poll to the last record. */
    public static double run(String bootstrap, String topic, long records) {
        return run(bootstrap, Map.of(), topic, records);
    }

    /** Like {@link #run(String, String, long)}, the consumer configured with {@code security} too. */
    public static double run(String bootstrap, Map<String, Object> security, String topic, long records) {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap, security)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            partitions.forEach(consumer::position);
            long start = System.nanoTime();
            long deadline = start + DEADLINE.toNanos();
            long seen = 0;
            long bytes = 0;
            while (seen < records) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("read " + seen + " of " + records + " records within " + DEADLINE);
                }
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                for (var record : batch) {
                    seen++;
                    bytes += record.serializedValueSize();
                }
            }
            double rate = bytes / ((System.nanoTime() - start) / 1e9);
            ClientTraffic.add(bootstrap, consumer.metrics());
            return rate;
        }
    }
}
