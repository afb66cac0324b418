package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * A rolling upgrade as the chart's Deployment does it (maxSurge 1, maxUnavailable 0), with proxy
 * processes configured by environment behind a Service: the new proxy B is started and joins the
 * Service once its readiness probe ({@code /health}) passes; the old one, A, leaves the Service
 * and gets SIGTERM, drains and exits 0. A producer and a group consumer on the Service run
 * throughout: no acknowledged record is lost, and both carry on through B. docs/operations.md,
 * "Upgrading", quotes what this test runs.
 */
class UpgradeIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);
    private static final String TOPIC = "upgrade";
    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @Test
    void aRollingUpgradeLosesNoAcknowledgedRecordAndTheClientsCarryOnThroughTheNewProxy() throws Exception {
        KAFKA.cluster().createTopic(TOPIC, PARTITIONS);
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean stopConsumer = new AtomicBoolean();
        try (ServiceRelay service = ServiceRelay.start()) {
            String bootstrap = "127.0.0.1:" + service.port();
            // Given: proxy A (the running version) ready behind the Service, and clients on the Service
            Replica replicaA = Replica.behind(service);
            try (ProxyProcess a = ProxyProcess.start(replicaA.env(), "-Xmx256m")) {
                awaitReady(replicaA);
                service.endpoints(List.of(replicaA.kafkaPort()));
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProperties(bootstrap))) {
                    Thread produce = streamRecords(producer, acknowledged, stop);
                    Thread consume = consumeRecords(bootstrap, consumed, stopConsumer);
                    Eventually.await(DEADLINE, "records to flow through A", () -> consumed.size() >= 300);

                    // When: B (the new version) starts and joins the Service once ready
                    Replica replicaB = Replica.behind(service);
                    try (ProxyProcess b = ProxyProcess.start(replicaB.env(), "-Xmx256m")) {
                        awaitReady(replicaB);
                        service.endpoints(List.of(replicaA.kafkaPort(), replicaB.kafkaPort()));
                        // And A leaves the Service and gets SIGTERM
                        service.endpoints(List.of(replicaB.kafkaPort()));
                        a.terminate();

                        // Then: A drains and exits 0 within its drain timeout
                        assertTrue(a.awaitExit(DRAIN_TIMEOUT.plus(DEADLINE)), "A did not exit:\n" + a.output());
                        assertEquals(0, a.exitCode(), a.output());
                        assertTrue(a.output().contains("Draining"), a.output());

                        // And both clients carry on through B
                        int producedAtExit = acknowledged.size();
                        int consumedAtExit = consumed.size();
                        Eventually.await(DEADLINE, "records to flow through B", () -> acknowledged.size()
                                >= producedAtExit + 300 && consumed.size() >= consumedAtExit + 300);
                        stop.set(true);
                        produce.join();
                        producer.flush();

                        // And the consumer gets every acknowledged record, and so do the brokers
                        Eventually.await(DEADLINE, "the consumer to catch up",
                                () -> consumed.containsAll(acknowledged));
                        stopConsumer.set(true);
                        consume.join();
                        Set<String> lost = new HashSet<>(acknowledged);
                        lost.removeAll(readAll());
                        assertTrue(lost.isEmpty(), lost.size() + " acknowledged records lost");
                    }
                }
            } finally {
                stop.set(true);
                stopConsumer.set(true);
            }
        }
    }

    /** One proxy of the Deployment: its own Kafka and health ports, the Service's address advertised. */
    private record Replica(int kafkaPort, int healthPort, int servicePort) {
        static Replica behind(ServiceRelay service) {
            return new Replica(FreePorts.next(), FreePorts.next(), service.port());
        }

        /** The process's environment, as the chart's ConfigMap sets it. */
        Map<String, String> env() {
            Map<String, String> env = new HashMap<>();
            env.put(ProxyConfig.ADDR, "127.0.0.1:" + kafkaPort);
            env.put(ProxyConfig.ADVERTISED_HOST, "127.0.0.1");
            env.put(ProxyConfig.ADVERTISED_PORT, String.valueOf(servicePort));
            env.put(ProxyConfig.BACKENDS, KAFKA.cluster().bootstrapServers());
            env.put(ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + healthPort);
            env.put(ProxyConfig.DRAIN_TIMEOUT_MS, String.valueOf(DRAIN_TIMEOUT.toMillis()));
            env.put(ProxyConfig.READY_PROBE_INTERVAL_MS, "500");
            return env;
        }
    }

    /** Waits for {@code GET /health} to answer 200: the chart's readiness probe. */
    private static void awaitReady(Replica replica) {
        HttpClient http = HttpClient.newHttpClient();
        URI health = URI.create("http://127.0.0.1:" + replica.healthPort() + "/health");
        Eventually.await(DEADLINE, "/health 200 on port " + replica.healthPort(), () -> {
            try {
                return http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    private static Properties producerProperties(String bootstrap) {
        Properties props = RecordRoundTrip.idempotentProducerProperties(bootstrap);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return props;
    }

    /** Sends records until stopped, at most 100 unanswered at a time, noting each acknowledged value. */
    private static Thread streamRecords(KafkaProducer<String, String> producer, Set<String> acknowledged,
                                        AtomicBoolean stop) {
        Semaphore window = new Semaphore(100);
        Thread thread = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                try {
                    window.acquire();
                } catch (InterruptedException e) {
                    return;
                }
                String value = "v" + i;
                producer.send(new ProducerRecord<>(TOPIC, value), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.add(value);
                    }
                    window.release();
                });
            }
        }, "upgrade-producer");
        thread.start();
        return thread;
    }

    /** A group consumer on the Service, noting every value it reads, until stopped. */
    private static Thread consumeRecords(String bootstrap, Set<String> consumed, AtomicBoolean stop) {
        Properties props = RecordRoundTrip.consumerProperties(bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "upgrade-group");
        Thread thread = new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(TOPIC));
                while (!stop.get()) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        consumed.add(record.value());
                    }
                }
            }
        }, "upgrade-consumer");
        thread.start();
        return thread;
    }

    /** Every value in the topic, read from the brokers directly. */
    private static Set<String> readAll() {
        return RecordRoundTrip.readAllValues(KAFKA.cluster().bootstrapServers(), TOPIC, PARTITIONS, DEADLINE);
    }
}
