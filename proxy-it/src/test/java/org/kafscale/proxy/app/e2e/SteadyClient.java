package org.kafscale.proxy.app.e2e;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A well-behaved client that keeps working while a test misbehaves elsewhere: on a thread of its
 * own, a producer and a consumer (one connection each, held throughout) produce one record and
 * read it back, round after round, until closed. A round that fails or takes past its deadline is
 * noted, so a test can assert the client was served the whole time.
 */
final class SteadyClient implements AutoCloseable {
    private static final Duration ROUND_DEADLINE = Duration.ofSeconds(10);

    private final KafkaProducer<String, String> producer;
    private final KafkaConsumer<String, String> consumer;
    private final String topic;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger rounds = new AtomicInteger();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final Thread thread;

    private SteadyClient(String bootstrap, String topic) {
        this.topic = topic;
        this.producer = new KafkaProducer<>(RecordRoundTrip.idempotentProducerProperties(bootstrap));
        this.consumer = new KafkaConsumer<>(RecordRoundTrip.consumerProperties(bootstrap));
        this.thread = new Thread(this::run, "steady-client");
    }

    /** Starts the rounds on partition 0 of {@code topic} through {@code bootstrap}. */
    static SteadyClient start(String bootstrap, String topic) {
        SteadyClient client = new SteadyClient(bootstrap, topic);
        client.thread.start();
        return client;
    }

    /** Rounds completed so far. */
    int rounds() {
        return rounds.get();
    }

    /** What went wrong in any round so far. */
    List<String> failures() {
        return failures;
    }

    private void run() {
        TopicPartition partition = new TopicPartition(topic, 0);
        consumer.assign(List.of(partition));
        for (int i = 0; !stop.get(); i++) {
            String value = "steady-" + i;
            try {
                producer.send(new ProducerRecord<>(topic, 0, null, value))
                        .get(ROUND_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                if (!readBack(value)) {
                    failures.add("round " + i + ": " + value + " not read back within " + ROUND_DEADLINE);
                }
                rounds.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                failures.add("round " + i + ": " + e);
            }
        }
    }

    private boolean readBack(String value) {
        long deadline = System.nanoTime() + ROUND_DEADLINE.toNanos();
        while (System.nanoTime() < deadline && !stop.get()) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                if (record.value().equals(value)) {
                    return true;
                }
            }
        }
        return stop.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
        producer.close(ROUND_DEADLINE);
        consumer.close(ROUND_DEADLINE);
    }
}
