package org.kafscale.proxy.bench.soak;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a consumer group reading through a proxy replica: it records every record it is
 * given (into the group's shared {@link Seen}) and how long it went without records while its
 * partitions had some waiting (the "stuck" time the soak bounds).
 */
final class GroupMember implements AutoCloseable {
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(45);

    /** What a group was given, by partition and offset (a record given twice after a rebalance counts once). */
    static final class Seen {
        final Map<TopicPartition, Map<Long, String>> records = new ConcurrentHashMap<>();
        final AtomicLong count = new AtomicLong();

        void add(ConsumerRecord<String, String> record) {
            records.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), p -> new ConcurrentHashMap<>())
                    .put(record.offset(), record.value());
            count.incrementAndGet();
        }
    }

    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;
    private final Seen seen;
    private final AtomicLong longestStuckNanos = new AtomicLong();
    private volatile boolean stopped;

    GroupMember(String name, String bootstrap, String group, String topic, Seen seen) {
        this.seen = seen;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.CLIENT_ID_CONFIG, name,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) SESSION_TIMEOUT.toMillis()),
                new StringDeserializer(), new StringDeserializer());
        this.thread = new Thread(() -> run(topic), name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run(String topic) {
        consumer.subscribe(List.of(topic));
        long waitingSince = -1;
        try {
            while (!stopped) {
                var records = consumer.poll(Duration.ofMillis(500));
                long now = System.nanoTime();
                if (!records.isEmpty()) {
                    records.forEach(seen::add);
                    waitingSince = -1;
                } else if (hasLag(consumer.assignment())) {
                    if (waitingSince < 0) {
                        waitingSince = now;
                    }
                    longestStuckNanos.accumulateAndGet(now - waitingSince, Math::max);
                } else {
                    waitingSince = -1;
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(30)));
        }
    }

    private boolean hasLag(Set<TopicPartition> assigned) {
        for (TopicPartition partition : assigned) {
            OptionalLong lag = consumer.currentLag(partition);
            if (lag.isPresent() && lag.getAsLong() > 0) {
                return true;
            }
        }
        return false;
    }

    /** The longest time it had records waiting for it and got none. */
    Duration longestStuck() {
        return Duration.ofNanos(longestStuckNanos.get());
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        consumer.wakeup();
        thread.join();
    }
}
