package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.FetchRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * The Kafka listener's limits, each driven past with raw sockets, the way the security review's
 * probes did, while a well-behaved client keeps producing and consuming through the same proxy.
 * Bounds are read from the proxy's own metrics.
 */
class ListenerLimitsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TOPIC = "limits";
    /** No records: a Fetch at offset 0 waits at the broker for its whole max wait. */
    private static final String EMPTY_TOPIC = "limits-empty";
    /** The steady client's: its records are read back one by one. */
    private static final String STEADY_TOPIC = "limits-steady";

    private static KafkaCluster cluster;
    private RunningProxy proxy;
    private final List<Socket> sockets = new ArrayList<>();
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(1);
        cluster.createTopic(TOPIC, 3);
        cluster.createTopic(EMPTY_TOPIC, 3);
        cluster.createTopic(STEADY_TOPIC, 1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void closeEverything() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    /** The security review's H1 probe (A29): a 1 MiB size and 2 KB of it, on many connections. */
    @Test
    void connectionsClaimingAMiBFrameHoldOnlyWhatTheySentAndAreClosedAtTheFrameReadTimeout() throws Exception {
        // Given a proxy with a 10 s frame read timeout (and an unauthenticated timeout past it, so
        // the frame clock is the one that runs out)
        proxy = start(Map.of(ProxyConfig.FRAME_READ_TIMEOUT_MS, "10000",
                ProxyConfig.UNAUTHENTICATED_IDLE_TIMEOUT_MS, "60000"));
        double directBefore = proxy.metric("kafscale_proxy_netty_direct_memory_bytes");

        // When 300 connections each claim a 1 MiB frame and send 2044 bytes of it, then 100 more
        for (int i = 0; i < 300; i++) {
            Socket socket = connect("127.0.0.1");
            socket.getOutputStream().write(ByteBuffer.allocate(2048).putInt(1 << 20).array());
        }
        for (Socket socket : sockets) {
            socket.getOutputStream().write(new byte[100]);
        }
        Eventually.await(DEADLINE, "300 partial frames buffered",
                () -> proxy.metric("kafscale_proxy_partial_frame_bytes") >= 300 * 2148);

        // Then the proxy holds what was sent, not 300 MiB, and serves others meanwhile
        assertEquals(300 * 2148, proxy.metric("kafscale_proxy_partial_frame_bytes"));
        double directGrowth = proxy.metric("kafscale_proxy_netty_direct_memory_bytes") - directBefore;
        assertTrue(directGrowth < 150 * 1024 * 1024, "direct memory grew by " + directGrowth + " bytes");
        assertRoundTrip(0);
        // And every one of those connections is closed once its frame is late
        for (Socket socket : sockets) {
            assertClosedByProxy(socket);
        }
        Eventually.await(DEADLINE, "partial frames released",
                () -> proxy.metric("kafscale_proxy_partial_frame_bytes") == 0);
        logs.awaitLine(DEADLINE, "was not complete 10000 ms after its first bytes");
    }

    @Test
    void connectionsOverTheBudgetForPartialFramesArePausedWhileOthersAreServed() throws Exception {
        // Given a proxy that holds at most 1 MiB of partial frames over all connections
        proxy = start(Map.of(ProxyConfig.MAX_PARTIAL_FRAME_BYTES, String.valueOf(1 << 20)));

        // When 4 connections each start a 64 MiB frame and send as much of it as the proxy takes
        List<SocketChannel> hoarders = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", proxy.port()));
            channel.configureBlocking(false);
            hoarders.add(channel);
            sockets.add(channel.socket());
        }
        ByteBuffer size = ByteBuffer.allocate(4).putInt(64 << 20).flip();
        for (SocketChannel channel : hoarders) {
            channel.write(size.duplicate());
        }
        long offered = offerUntilStalled(hoarders, 64 << 20);

        // Then the proxy holds its budget and at most one read batch (16 reads) per connection more,
        // not the 256 MiB offered, and serves others meanwhile
        double held = proxy.metric("kafscale_proxy_partial_frame_bytes");
        assertTrue(held <= 6 << 20, "held " + held + " bytes of " + offered + " taken");
        assertRoundTrip(10);
        assertTrue(proxy.metric("kafscale_proxy_partial_frame_bytes") <= 6 << 20);
    }

    @Test
    void connectionsPastTheTotalLimitAreRefusedAtAcceptWhileOpenOnesKeepWorking() throws Exception {
        // Given a proxy that takes 30 connections, and a client already connected to it
        proxy = start(Map.of(ProxyConfig.MAX_CONNECTIONS, "30"));
        try (Admin connected = admin()) {
            connected.listTopics().names().get();

            // When 40 more connections arrive
            for (int i = 0; i < 40; i++) {
                connect("127.0.0.1");
            }

            // Then the proxy holds 30 at most, refused the rest at once, and the connected client is served
            Eventually.await(DEADLINE, "refusals counted",
                    () -> proxy.metric("kafscale_proxy_client_connections_refused_total{limit=\"total\"") >= 10);
            assertTrue(proxy.metric("kafscale_proxy_client_connections ") <= 30);
            assertTrue(connected.listTopics().names().get().contains(TOPIC));
            logs.awaitLine(DEADLINE, "the listener's limit of 30 connections is reached");
        }
    }

    @Test
    void connectionsPastThePerAddressLimitAreRefusedWhileOtherAddressesProduceAndConsume() throws Exception {
        // Given a proxy that takes 10 connections from one address (and keeps silent ones a minute)
        proxy = start(Map.of(ProxyConfig.MAX_CONNECTIONS_PER_IP, "10",
                ProxyConfig.UNAUTHENTICATED_IDLE_TIMEOUT_MS, "60000"));

        // When 30 connections arrive from 127.0.0.2
        for (int i = 0; i < 30; i++) {
            connect("127.0.0.2");
        }

        // Then 20 were refused, and a client on 127.0.0.1 produces and consumes
        Eventually.await(DEADLINE, "refusals counted",
                () -> proxy.metric("kafscale_proxy_client_connections_refused_total{limit=\"per_ip\"") == 20);
        int closed = 0;
        for (Socket socket : sockets) {
            socket.setSoTimeout(200);
            closed += isClosed(socket) ? 1 : 0;
        }
        assertEquals(20, closed);
        assertRoundTrip(20);
    }

    /** Kroxylicious' unauthenticated idle timeout, and better bounded: sockets that never speak. */
    @Test
    void socketsThatNeverSendAByteAreAllClosedByTheUnauthenticatedTimeoutWhileOthersAreServed() throws Exception {
        // Given a proxy with a 1 s unauthenticated timeout, taking many connections per address, and a
        // client on 127.0.0.1 producing and consuming throughout
        Duration timeout = Duration.ofSeconds(1);
        proxy = start(Map.of(ProxyConfig.MAX_CONNECTIONS_PER_IP, "5000",
                ProxyConfig.UNAUTHENTICATED_IDLE_TIMEOUT_MS, String.valueOf(timeout.toMillis())));
        try (SteadyClient steady = SteadyClient.start(proxy.bootstrap(), STEADY_TOPIC)) {
            Eventually.await(DEADLINE, "the steady client's first round", () -> steady.rounds() > 0);
            int roundsBefore = steady.rounds();

            // When 3,000 sockets from 127.0.0.2 connect and never send a byte
            try (SilentSockets silent = SilentSockets.open(3000, "127.0.0.2",
                    new InetSocketAddress("127.0.0.1", proxy.port()))) {

                // Then each sees the proxy close it within the timeout plus a second of its own connect
                assertEquals(3000, silent.awaitAllClosed(DEADLINE), "connections closed by the proxy");
                assertTrue(silent.longestHeld().compareTo(timeout.plusSeconds(1)) <= 0,
                        "a silent connection was held " + silent.longestHeld());
            }
            // and each was counted, and logged
            assertEquals(3000, proxy.metric(
                    "kafscale_proxy_client_connections_timed_out_total{timeout=\"unauthenticated\""));
            logs.awaitLine(DEADLINE, "no whole request (nor, on a SASL listener, an authentication) 1000 ms after it");
            // while the steady client and a new one were served
            assertRoundTrip(40);
            int roundsMeanwhile = steady.rounds() - roundsBefore;
            assertTrue(roundsMeanwhile > 0, "the steady client completed no round while the sockets were open");
            assertEquals(List.of(), steady.failures());
        }
    }

    /** The security review's H2 probe (A25): 391 long-poll Fetches were in flight with the cap at 100. */
    @Test
    void pipelinedLongPollsBeyondTheInFlightCapWaitInTheProxyNotAtTheBrokers() throws Exception {
        // Given a proxy with 10 requests in flight per connection
        proxy = start(Map.of(ProxyConfig.MAX_IN_FLIGHT, "10"));

        // When one connection pipelines 500 Fetches that the broker holds for 10 s each
        Socket socket = connect("127.0.0.1");
        byte[] fetches = fetches(EMPTY_TOPIC, 500, 10_000);
        socket.getOutputStream().write(fetches);

        // Then no more than the cap (plus the readiness probe's and this test's client) are ever in flight
        Eventually.await(DEADLINE, "the cap reached", () -> proxy.metric("kafscale_proxy_requests_in_flight") >= 10);
        double most = 0;
        for (int i = 0; i < 20; i++) {
            most = Math.max(most, proxy.metric("kafscale_proxy_requests_in_flight"));
        }
        assertRoundTrip(30);
        most = Math.max(most, proxy.metric("kafscale_proxy_requests_in_flight"));
        assertTrue(most <= 16, "in flight: " + most);
    }

    /** The security review's A24 probe: pipelined Fetches whose answers are never read. */
    @Test
    void clientThatPipelinesAndNeverReadsHoldsAtMostItsShareOfAnswers() throws Exception {
        // Given records to fetch, and a proxy that keeps at most 256 KiB of unread answers per connection
        proxy = start(Map.of(ProxyConfig.MAX_UNREAD_ANSWER_BYTES_PER_CONNECTION, String.valueOf(256 * 1024),
                ProxyConfig.MAX_IN_FLIGHT, "10"));
        RecordRoundTrip.produce(proxy.bootstrap(), TOPIC, 3, 100, 300);

        // When a connection sends 5000 Fetches from offset 0, max wait 0, and reads nothing
        SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", proxy.port()));
        channel.configureBlocking(false);
        sockets.add(channel.socket());
        PipelinedFetches.offerUntilStalled(List.of(channel), fetches(TOPIC, 5000, 0));

        // Then the proxy holds a bounded amount of its answers, and serves others meanwhile
        double unread = proxy.metric("kafscale_proxy_unread_answer_bytes");
        assertTrue(unread <= 8 << 20, "unread answer bytes " + unread);
        assertTrue(proxy.metric("kafscale_proxy_requests_in_flight") <= 16);
        assertRoundTrip(400);
    }

    /** The security review's L3 probe (A11): a 34-line stack trace and a second WARN for 17 bytes. */
    @Test
    void malformedRequestLogsOneLineWithoutAStackTrace() throws Exception {
        // Given a proxy
        proxy = start(Map.of());
        Socket socket = connect("127.0.0.1");
        String client = socket.getLocalSocketAddress().toString();

        // When 17 bytes arrive: a Metadata v1 header whose client id claims a length of -5, and a
        // body too short for its topic count
        ByteBuffer frame = ByteBuffer.allocate(4 + 10 + 3);
        frame.putInt(13).putShort((short) 3).putShort((short) 1).putInt(7).putShort((short) -5).put(new byte[3]);
        socket.getOutputStream().write(frame.array());

        // Then the connection is closed with one line naming the client, and no stack trace anywhere
        assertClosedByProxy(socket);
        logs.awaitLine(DEADLINE, client);
        assertRoundTrip(40);
        // (The access line every closed connection gets is not about the problem.)
        List<String> aboutClient = logs.events().stream()
                .filter(e -> !e.getLoggerName().equals("org.kafscale.proxy.access"))
                .map(e -> e.getFormattedMessage()).filter(line -> line.contains(client)).toList();
        assertEquals(1, aboutClient.size(), "lines: " + aboutClient);
        assertTrue(logs.events().stream().allMatch(e -> e.getThrowableProxy() == null || !e.getLevel()
                .isGreaterOrEqual(ch.qos.logback.classic.Level.INFO)), logs.warnings());
    }

    private RunningProxy start(Map<String, String> settings) {
        RunningProxy started = RunningProxy.start(cluster, "single", settings);
        Eventually.await(DEADLINE, "proxy ready", () -> started.healthStatus("/readyz") == 200);
        return started;
    }

    private Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        return Admin.create(props);
    }

    private Socket connect(String fromAddress) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(fromAddress, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()));
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) DEADLINE.toMillis());
        sockets.add(socket);
        return socket;
    }

    /** A produce and its consume-back through the proxy, numbering records from {@code first}. */
    private void assertRoundTrip(int first) throws Exception {
        Map<Integer, List<String>> produced = RecordRoundTrip.produce(proxy.bootstrap(), TOPIC, 3, 10_000 + first, 5);
        int total = produced.values().stream().mapToInt(List::size).sum();
        assertEquals(5, total);
        assertTrue(RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), TOPIC, "round-trip-" + first + "-" + System.nanoTime(),
                total).values().stream().anyMatch(records -> !records.isEmpty()));
    }

    /** Writes {@code perChannel} zero bytes to each channel until the proxy stops reading them (see {@link PipelinedFetches}). */
    private static long offerUntilStalled(List<SocketChannel> channels, int perChannel) throws Exception {
        return PipelinedFetches.offerUntilStalled(channels, new byte[perChannel]);
    }

    /** {@code count} pipelined Fetch v12 requests for the topic's three partitions from offset 0. */
    private static byte[] fetches(String topic, int count, int maxWaitMs) {
        Map<TopicPartition, FetchRequest.PartitionData> partitions = new LinkedHashMap<>();
        for (int p = 0; p < 3; p++) {
            partitions.put(new TopicPartition(topic, p),
                    new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, -1, 64 * 1024, Optional.empty()));
        }
        return PipelinedFetches.fetches(partitions, count, maxWaitMs, maxWaitMs > 0 ? 1 : 0,
                FetchRequest.DEFAULT_RESPONSE_MAX_BYTES);
    }

    private static void assertClosedByProxy(Socket socket) throws IOException {
        assertTrue(isClosed(socket), "the proxy did not close the connection");
    }

    /** Whether a read sees the proxy's close (end of stream or reset) before the socket's timeout. */
    private static boolean isClosed(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
