package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.server.FrameBuffers;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * The process-wide budget for answers clients have not read holds against clients that pipeline
 * large Fetches and never read: the proxy's direct memory (what its answers are held in) grows by
 * the budget at most, while another client keeps producing and consuming through the same proxy.
 *
 * <p>What a client can make the proxy hold here is answers being received on its broker channels
 * (a broker channel sets aside a buffer for a whole answer at its first bytes) besides the unread
 * answers the budget counts. Before the poll channels' cap counted channels still connecting, each
 * of the 100 Fetches a connection has in flight opened a channel of its own, and direct memory grew
 * by about 480 MiB while the unread count peaked at 12 MiB.
 */
@Disabled("Flaky on a fresh clone: grew 80 MiB once against 64 MiB + 10 % (48 MiB in two other runs); bytes a broker is still sending are not counted in the budget yet, issue 26")
class UnreadAnswerBudgetIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TOPIC = "big-answers";
    private static final String ROUND_TRIP_TOPIC = "unread-round-trip";
    private static final int MIB = 1 << 20;
    private static final long BUDGET = 64L * MIB;
    private static final int CONNECTIONS = 4;
    /** More than the in-flight cap (100), so every connection fills its cap with 1 MiB answers. */
    private static final int FETCHES_PER_CONNECTION = 200;
    private static final Duration FETCH_MAX_WAIT = Duration.ofSeconds(20);

    private static KafkaCluster cluster;
    private RunningProxy proxy;
    private final List<SocketChannel> channels = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = KafkaCluster.start(1);
        cluster.createTopic(TOPIC, 1);
        cluster.createTopic(ROUND_TRIP_TOPIC, 1);
        // 1.5 MiB in 96 KiB records, so a Fetch from offset 0 with 1 MiB limits answers about 1 MiB.
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < 16; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, new byte[96 * 1024])).get();
            }
        }
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void closeEverything() throws IOException {
        for (SocketChannel channel : channels) {
            channel.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void connectionsThatPipelineLargeFetchesAndNeverReadGrowDirectMemoryByTheBudgetAtMost() throws Exception {
        // Given a proxy whose connections may hold 64 MiB of unread answers together, warmed up
        proxy = RunningProxy.start(cluster, "single", Map.of(ProxyConfig.MAX_UNREAD_ANSWER_BYTES, String.valueOf(BUDGET)));
        Eventually.await(DEADLINE, "proxy ready", () -> proxy.healthStatus("/readyz") == 200);
        assertRoundTrip(0);
        long before = PlatformDependent.usedDirectMemory();
        AtomicLong most = new AtomicLong(before);
        AtomicLong mostPinned = new AtomicLong();
        AtomicLong mostUnread = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                most.accumulateAndGet(PlatformDependent.usedDirectMemory(), Math::max);
                mostPinned.accumulateAndGet(FrameBuffers.allocator().pinnedDirectMemory(), Math::max);
                mostUnread.accumulateAndGet((long) proxy.metric("kafscale_proxy_unread_answer_bytes"), Math::max);
                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
            }
        }, "direct-memory-sampler");
        sampler.setDaemon(true);
        sampler.start();
        try {
            // When 4 connections each pipeline 200 Fetches of about 1 MiB answers and read nothing
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", proxy.port()));
                channel.configureBlocking(false);
                channels.add(channel);
            }
            PipelinedFetches.offerUntilStalled(channels, fetches(FETCHES_PER_CONNECTION));

            // Then another client produces and consumes meanwhile
            assertRoundTrip(1);
        } finally {
            sampler.interrupt();
            sampler.join();
        }
        // And direct memory grew by the budget (plus 10 %) at most, not by 4 x 100 answers in flight
        long growth = most.get() - before;
        assertTrue(growth <= BUDGET * 11 / 10, "direct memory grew by " + growth / MIB + " MiB (at most " + mostPinned.get() / MIB + " MiB in use, at most " + mostUnread.get() / MIB + " MiB unread) against a budget of "
                + BUDGET / MIB + " MiB; unread answers: " + proxy.metric("kafscale_proxy_unread_answer_bytes"));
        assertTrue(proxy.metric("kafscale_proxy_unread_answer_bytes") > 0, "the clients hold no unread answers");
    }

    /** Round {@code round} produces 5 records and consumes the topic, its earlier rounds' records included. */
    private void assertRoundTrip(int round) throws Exception {
        Map<Integer, List<String>> produced = RecordRoundTrip.produce(proxy.bootstrap(), ROUND_TRIP_TOPIC, 1, round * 5, 5);
        assertEquals(5, produced.get(0).size());
        assertTrue(RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), ROUND_TRIP_TOPIC, "round-trip-" + round,
                (round + 1) * 5).get(0).containsAll(produced.get(0)));
    }

    /**
     * {@code count} pipelined Fetch v12 requests for the whole topic from offset 0, 1 MiB each way.
     * Their max wait is long enough for the broker to answer every one that waits behind others on
     * the connection's broker channels: with no max wait, the proxy answers those empty after its
     * 100 ms margin and the clients are never sent the answers this test means them to hoard.
     */
    private static byte[] fetches(int count) {
        return PipelinedFetches.fetches(Map.of(new TopicPartition(TOPIC, 0),
                new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, -1, MIB, Optional.empty())), count,
                (int) FETCH_MAX_WAIT.toMillis(), 0, MIB);
    }
}
