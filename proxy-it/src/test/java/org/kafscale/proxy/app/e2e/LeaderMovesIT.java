package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * A broker that leads partitions stops while an idempotent producer is sending through the proxy:
 * leadership moves to the other replicas, and the producer finishes without an error and without
 * losing or duplicating a record.
 */
class LeaderMovesIT {
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 20_000;
    private static final int RECORDS_PER_TICK = 20;
    private static final Duration TICK = Duration.ofMillis(10);
    private static final Duration RUN_DEADLINE = Duration.ofSeconds(90);

    private static KafkaCluster cluster;
    private Integer stoppedBroker;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    /** Leaves the cluster whole for the next test even when this one failed half-way. */
    @AfterEach
    void restartStoppedBroker() {
        if (stoppedBroker != null) {
            cluster.restartBroker(stoppedBroker);
            stoppedBroker = null;
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "ports", "single"})
    void stoppingTheBusiestLeaderMidRunLosesNoAcknowledgedRecordAndFailsNoSend(String mode) throws Exception {
        // Given: six partitions with three replicas each, and the broker leading most of them
        String topic = "leader-moves-" + mode;
        cluster.createTopic(topic, PARTITIONS);
        int busiest = busiestLeader(cluster.leaders(topic));
        try (RunningProxy proxy = RunningProxy.start(cluster, mode);
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerProperties(proxy.bootstrap()));
             ContinuousSend send = new ContinuousSend(producer, topic)) {
            send.start();

            // When: a third of the records is acknowledged, the busiest leader stops
            Eventually.await(RUN_DEADLINE, "a third of the records acknowledged",
                    () -> send.acknowledged.get() >= RECORDS / 3 || !send.failures.isEmpty());
            try {
                stoppedBroker = busiest;
                cluster.stopBroker(busiest);
            } finally {
                send.brokerStopped.countDown();
            }
            send.allSent.get(RUN_DEADLINE.toSeconds(), TimeUnit.SECONDS);
            producer.flush();

            // Then: every send completed without an error
            assertTrue(send.failures.isEmpty(), send.failures.size() + " sends failed; the first: " + send.firstFailures());
            assertEquals(RECORDS, send.acknowledged.get(), "acknowledged records");

            // When: the broker is back and a consumer reads the partitions from the start
            cluster.restartBroker(busiest);
            stoppedBroker = null;
            Map<Integer, List<String>> received =
                    RecordRoundTrip.consumeFromStart(proxy.bootstrap(), topic, PARTITIONS, RECORDS);

            // Then: every acknowledged record is there once, in the order sent
            RecordRoundTrip.assertExactlyOnceInOrder(send.sent, received);
        }
    }

    private static int busiestLeader(Map<Integer, Integer> leaders) {
        Map<Integer, Integer> led = new HashMap<>();
        leaders.values().forEach(broker -> led.merge(broker, 1, Integer::sum));
        return Collections.max(led.entrySet(), Map.Entry.comparingByValue()).getKey();
    }

    private static Properties producerProperties(String bootstrap) {
        Properties props = RecordRoundTrip.idempotentProducerProperties(bootstrap);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 90_000);
        return props;
    }

    /**
     * Sends {@link #RECORDS} records round-robin over the partitions at a steady pace
     * ({@link #RECORDS_PER_TICK} every {@link #TICK}, about ten seconds in all), so sends are in
     * flight while the broker stops; the last third is held back until the stop has completed.
     */
    private static final class ContinuousSend implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final String topic;
        private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        /** Written by the ticker only; read once {@link #allSent} completed. */
        private final Map<Integer, List<String>> sent = new HashMap<>();
        private final List<Exception> failures = Collections.synchronizedList(new ArrayList<>());
        private final AtomicInteger acknowledged = new AtomicInteger();
        private final CountDownLatch brokerStopped = new CountDownLatch(1);
        private final CompletableFuture<Void> allSent = new CompletableFuture<>();
        private int next;

        ContinuousSend(KafkaProducer<String, String> producer, String topic) {
            this.producer = producer;
            this.topic = topic;
        }

        void start() {
            ticker.scheduleAtFixedRate(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void tick() {
            try {
                for (int n = 0; n < RECORDS_PER_TICK && next < RECORDS; n++, next++) {
                    if (next >= 2 * RECORDS / 3 && brokerStopped.getCount() > 0) {
                        return;
                    }
                    sendOne(next);
                }
                if (next == RECORDS) {
                    allSent.complete(null);
                    ticker.shutdown();
                }
            } catch (RuntimeException e) {
                allSent.completeExceptionally(e);
                ticker.shutdown();
            }
        }

        private void sendOne(int i) {
            int partition = i % PARTITIONS;
            String value = "p" + partition + "-" + i;
            sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
            producer.send(new ProducerRecord<>(topic, partition, "k" + i, value), (metadata, exception) -> {
                if (exception != null) {
                    failures.add(exception);
                } else {
                    acknowledged.incrementAndGet();
                }
            });
        }

        List<String> firstFailures() {
            synchronized (failures) {
                return failures.stream().limit(3).map(Exception::toString).toList();
            }
        }

        @Override
        public void close() {
            ticker.shutdownNow();
        }
    }
}
