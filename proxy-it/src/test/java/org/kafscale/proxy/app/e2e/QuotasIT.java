package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Byte-rate quotas of virtual clusters, with real Java clients through the proxy to a real broker:
 * alice (team-a) may produce 512 KiB/s, bob's team-b 2 MiB/s and fetch 1 MiB/s. Each client sends
 * or reads as fast as it can for 20 s, at the same time as the other, and is held within 10 % of
 * its own rate; the throttles show in the metrics under the virtual cluster and the principal.
 */
class QuotasIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    private static final long ALICE_PRODUCE = 512 * 1024;
    private static final long BOB_PRODUCE = 2 * 1024 * 1024;
    private static final long BOB_FETCH = 1024 * 1024;
    private static final Duration RUN = Duration.ofSeconds(20);
    private static final int VALUE_BYTES = 1000;

    @TempDir
    static Path dir;
    private static RunningProxy proxy;

    @BeforeAll
    static void startProxy() throws Exception {
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice", "bob", "carol"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "a."
                    quotas:
                      perPrincipal:
                        produceBytesPerSecond: %d
                  - name: team-b
                    principals: ["User:bob"]
                    topicPrefix: "b."
                    quotas:
                      produceBytesPerSecond: %d
                      fetchBytesPerSecond: %d
                  - name: team-c
                    principals: ["User:carol"]
                    topicPrefix: "c."
                    quotas:
                      requestPercentage: 0.1
                """.formatted(ALICE_PRODUCE, BOB_PRODUCE, BOB_FETCH)));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        KAFKA.cluster().admin().createTopics(List.of(new NewTopic("a.orders", 1, (short) 1),
                new NewTopic("b.orders", 1, (short) 1), new NewTopic("b.history", 1, (short) 1),
                new NewTopic("c.orders", 1, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void twoProducersAtOnceAreEachHeldToTheirOwnVirtualClustersRate() throws Exception {
        ExecutorService producers = Executors.newFixedThreadPool(2);
        try {
            // When alice and bob each produce as fast as they can for 20 s, at the same time
            Future<Double> alice = producers.submit(() -> produceRate("alice"));
            Future<Double> bob = producers.submit(() -> produceRate("bob"));

            // Then each is held within 10 % of its own rate: bob's higher rate is not alice's
            assertWithinTenPercent("alice's produce rate", ALICE_PRODUCE, alice.get(2, TimeUnit.MINUTES));
            assertWithinTenPercent("bob's produce rate", BOB_PRODUCE, bob.get(2, TimeUnit.MINUTES));
        } finally {
            producers.shutdownNow();
        }
        // and the metrics show alice throttled under her virtual cluster and principal
        assertTrue(proxy.metric("kafscale_proxy_quota_throttle_seconds_total{principal=\"User:alice\","
                + "quota=\"produce\",virtual_cluster=\"team-a\"") > 0);
    }

    @Test
    void aConsumerIsHeldToItsVirtualClustersFetchRate() throws Exception {
        // Given 30 MiB in bob's history, written to the real cluster directly
        Properties direct = new Properties();
        direct.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(direct, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            byte[] value = new byte[VALUE_BYTES];
            for (int i = 0; i < 30 * 1024 * 1024 / VALUE_BYTES; i++) {
                producer.send(new ProducerRecord<>("b.history", value));
            }
            producer.flush();
        }

        // When bob reads it from the start as fast as he can for 20 s
        Properties props = ScramUsers.client(proxy.bootstrap(), "bob");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long bytes = 0;
        long start;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("history", 0)));
            start = System.nanoTime();
            while (System.nanoTime() - start < RUN.toNanos()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    bytes += record.value().length;
                }
            }
        }

        // Then he read within 10 % of his virtual cluster's fetch rate
        assertWithinTenPercent("bob's fetch rate", BOB_FETCH, bytes / seconds(System.nanoTime() - start));
    }

    @Test
    void aClientPastItsRequestTimeIsThrottledAndEveryRecordItWasAnsweredForLands() throws Exception {
        // Given carol's team-c may take 0.1 % of one event-loop thread (1 ms per second)
        Properties props = ScramUsers.client(proxy.bootstrap(), "carol");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        long acknowledged = 0;
        // When she produces one record per request, waiting for each, for 5 s
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long start = System.nanoTime();
            while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
                producer.send(new ProducerRecord<>("orders", new byte[10])).get(30, TimeUnit.SECONDS);
                acknowledged++;
            }
        }

        // Then her requests' loop time was charged, she was throttled for it, and every record landed
        assertTrue(proxy.metric("kafscale_proxy_quota_request_time_seconds_total{principal=\"User:carol\"") > 0);
        assertTrue(proxy.metric("kafscale_proxy_quota_throttle_seconds_total{principal=\"User:carol\","
                + "quota=\"request_time\"") > 0);
        TopicPartition hers = new TopicPartition("c.orders", 0);
        long landed = KAFKA.cluster().admin().listOffsets(Map.of(hers, OffsetSpec.latest())).all()
                .get(10, TimeUnit.SECONDS).get(hers).offset();
        assertTrue(landed == acknowledged, landed + " records landed, " + acknowledged + " acknowledged");
    }

    /** Produces 1000-byte records as fast as the client is let for 20 s; the bytes acknowledged per second. */
    private static double produceRate(String user) throws Exception {
        Properties props = ScramUsers.client(proxy.bootstrap(), user);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        // A small buffer, so that what the client has sent is what the proxy let through, not what waits in it
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256 * 1024);
        AtomicLong acknowledged = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            byte[] value = new byte[VALUE_BYTES];
            // Connected and authenticated before the clock starts
            producer.send(new ProducerRecord<>("orders", value)).get(30, TimeUnit.SECONDS);
            long start = System.nanoTime();
            while (System.nanoTime() - start < RUN.toNanos()) {
                producer.send(new ProducerRecord<>("orders", value), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.addAndGet(VALUE_BYTES);
                    }
                });
            }
            producer.flush();
            return acknowledged.get() / seconds(System.nanoTime() - start);
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static void assertWithinTenPercent(String what, long expected, double measured) {
        double ratio = measured / expected;
        // In the build's output: how close the rate came, which the assertion only bounds
        System.out.printf("%s: %d bytes/s, %.3f of the quota%n", what, Math.round(measured), ratio);
        assertTrue(ratio > 0.9 && ratio < 1.1, what + " was " + Math.round(measured) + " bytes/s, "
                + String.format("%.3f", ratio) + " of the quota " + expected);
    }
}
