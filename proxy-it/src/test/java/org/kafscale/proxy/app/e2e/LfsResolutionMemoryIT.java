package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/**
 * LFS resolution holds to its memory budget under load: twenty plain consumers read a 64 MiB
 * payload at once through a proxy process of 512 MiB of heap whose resolution budget is 128 MiB,
 * room for one such Fetch (it reserves twice its payload) but not two, and whose budget for
 * answers not yet read by their clients is 64 MiB. (With 256 MiB of heap the same run ran out of
 * memory: docs/lfs.md, "Reading", says what a heap must hold.) Every consumer gets its payload whole; the proxy never holds
 * more than the budget (its gauge, sampled throughout), some Fetches waited for it, and the
 * process neither runs out of memory nor stops serving.
 */
class LfsResolutionMemoryIT {
    private static final String BUCKET = "proxy-lfs";
    private static final String TOPIC = "media.large";
    private static final int PAYLOAD = 64 << 20;
    /** One 64 MiB Fetch reserves twice its payload (read, and rebuilt): room for one, not two. */
    private static final long BUDGET = 128L << 20;
    /** Answers written but not yet read by their clients, over all connections: one such answer. */
    private static final long UNREAD = 64L << 20;
    private static final int CONSUMERS = 20;
    private static final Duration DEADLINE = Duration.ofMinutes(4);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static KafkaCluster cluster;
    private static S3Server s3;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        s3 = S3Server.start();
        s3.createBucket(BUCKET);
        cluster.createTopic(TOPIC, 1);
    }

    @AfterAll
    static void stop() {
        s3.close();
        cluster.close();
    }

    @Test
    void twentyConsumersOf64MiBRecordsAreServedWithinTheBudgetOnA512MiBHeap() throws Exception {
        int kafkaPort = FreePorts.next();
        int healthPort = FreePorts.next();
        int lfsPort = FreePorts.next();
        Map<String, String> env = new HashMap<>(RunningProxy.lfsOn(s3, BUCKET, Map.of(
                LfsConfig.HTTP_ADDR, "127.0.0.1:" + lfsPort,
                LfsConfig.FETCH_RESOLVE_TOPICS, "media\\..*",
                LfsConfig.FETCH_RESOLVE_MEMORY_BYTES, String.valueOf(BUDGET))));
        env.put(ProxyConfig.ADDR, "127.0.0.1:" + kafkaPort);
        env.put(ProxyConfig.ADVERTISED_HOST, "127.0.0.1");
        env.put(ProxyConfig.ADVERTISED_PORT, String.valueOf(kafkaPort));
        env.put(ProxyConfig.BACKENDS, cluster.bootstrapServers());
        env.put(ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + healthPort);
        env.put(ProxyConfig.MAX_UNREAD_ANSWER_BYTES, String.valueOf(UNREAD));
        try (ProxyProcess proxy = ProxyProcess.start(env, "-Xmx512m", "-XX:MaxDirectMemorySize=512m")) {
            // Given a 64 MiB payload produced through the proxy's LFS API
            byte[] payload = new byte[PAYLOAD];
            new Random(64).nextBytes(payload);
            HttpResponse<String> produced = HTTP.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + lfsPort + "/lfs/produce"))
                    .header("X-Kafka-Topic", TOPIC).header("X-Kafka-Partition", "0")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, produced.statusCode(), produced.body());
            String expected = sha256(payload);
            payload = null; // the test JVM holds twenty consumers' answers, not this copy too

            // When twenty consumers read it at once, while the proxy's gauges are sampled
            URI metrics = URI.create("http://127.0.0.1:" + healthPort + "/metrics");
            AtomicBoolean reading = new AtomicBoolean(true);
            AtomicLong mostHeld = new AtomicLong();
            AtomicLong mostWaiting = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (reading.get()) {
                    try {
                        String page = HTTP.send(HttpRequest.newBuilder(metrics).build(),
                                HttpResponse.BodyHandlers.ofString()).body();
                        mostHeld.accumulateAndGet((long) RunningProxy.metricValue(page,
                                "kafscale_lfs_proxy_fetch_resolve_memory_bytes "), Math::max);
                        mostWaiting.accumulateAndGet((long) RunningProxy.metricValue(page,
                                "kafscale_lfs_proxy_fetch_resolve_waiting "), Math::max);
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "gauge-sampler");
            sampler.start();
            ExecutorService pool = Executors.newFixedThreadPool(CONSUMERS);
            List<Future<String>> reads = new ArrayList<>();
            try {
                for (int i = 0; i < CONSUMERS; i++) {
                    reads.add(pool.submit(() -> readOne("127.0.0.1:" + kafkaPort)));
                }
                // Then every consumer gets the payload whole
                for (Future<String> read : reads) {
                    assertEquals(expected, read.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
                }
            } finally {
                reading.set(false);
                pool.shutdownNow();
                sampler.join();
            }

            // and the proxy held no more than its budget, made Fetches wait for it, and kept serving
            assertTrue(mostHeld.get() <= BUDGET, "held " + mostHeld.get() + " of a budget of " + BUDGET);
            assertTrue(mostWaiting.get() > 0, "no Fetch waited for the budget: the test did not load it");
            assertFalse(proxy.output().contains("OutOfMemoryError"), proxy.output());
            Eventually.await(Duration.ofSeconds(10), "the proxy to answer /readyz", () -> readyz(healthPort) == 200);
        }
    }

    /** What {@code /readyz} answers; 0 when the health listener does not answer. */
    private static int readyz(int healthPort) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/readyz")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (java.io.IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** The SHA-256 of the first record of the topic, read by a plain consumer through the proxy. */
    private static String readOne(String bootstrap) throws Exception {
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis()),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    return sha256(record.value());
                }
            }
            throw new AssertionError("no record of " + TOPIC + " within " + DEADLINE);
        }
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
