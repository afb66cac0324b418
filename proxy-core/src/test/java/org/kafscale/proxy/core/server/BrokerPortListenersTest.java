package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.local.BrokerPorts;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.FreePorts;

/**
 * Advertise mode ports: the listener opens a port per broker id in range as brokers appear,
 * closes it as they leave (answering what its connections had asked first), and each connection
 * knows which broker its port stands for.
 */
class BrokerPortListenersTest {
    private static final int COUNT = 4;

    /** Each request's connection, as the handler saw it, with the reply the test completes. */
    private record Seen(OptionalInt addressedBroker, RequestFrame request, Promise<Reply> reply) {
    }

    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    private final EventLoopGroup workers = NettyTransport.newEventLoopGroup(1, "broker-ports-test");
    private final int base = FreePorts.block(COUNT);
    private KafkaProxyServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void start() throws InterruptedException {
        RequestHandler handler = (context, request) -> {
            Promise<Reply> reply = context.newReply();
            seen.add(new Seen(context.addressedBroker(), request, reply));
            return reply;
        };
        ListenerSettings settings = new ListenerSettings(new InetSocketAddress("127.0.0.1", 0),
                KafkaWire.MAX_FRAME_BYTES, 16, Duration.ofSeconds(10), Duration.ofSeconds(1), 1,
                ListenerLimits.DEFAULTS, new BrokerPorts(base, COUNT));
        server = KafkaProxyServer.start(settings, workers, RequestHandlers.shared(handler),
                new BackendConnector(KafkaWire.MAX_FRAME_BYTES, Duration.ofSeconds(1)),
                new ConnectionListener() { });
    }

    /** Sends a Metadata request on {@code connection}; the handler's view of it. */
    private Seen ask(RawKafkaConnection connection) throws Exception {
        return ask(connection, new RequestHeader[1]);
    }

    /** As {@link #ask(RawKafkaConnection)}, keeping the request's header in {@code header[0]} to read its answer. */
    private Seen ask(RawKafkaConnection connection, RequestHeader[] header) throws Exception {
        header[0] = connection.write(new MetadataRequest.Builder(new MetadataRequestData()).build((short) 12));
        Seen request = seen.poll(10, TimeUnit.SECONDS);
        assertTrue(request != null, "the request reached the handler");
        return request;
    }

    private static void answer(Seen request) {
        // The answer needs only the request's header fields; the connection owns (and releases) its frame.
        request.reply().setSuccess(Reply.send(ResponseFrames.encode(request.request(), new MetadataResponseData())));
    }

    @Test
    void eachBrokerIdInRangeGetsAPortWhoseConnectionsAddressThatBroker() throws Exception {
        start();
        // When: the topology lists brokers 0 and 2, and 9, which is past the range of 4
        server.followBrokers(List.of(0, 2, 9));
        // Then
        assertEquals(Set.of(0, 2), server.brokerPortAddresses().keySet());
        assertEquals(base + 2, server.brokerPortAddresses().get(2).getPort());
        assertFalse(reachable(base + 1), "no port for an id the topology does not list");
        try (RawKafkaConnection onBroker2 = new RawKafkaConnection(base + 2);
             RawKafkaConnection onBootstrap = new RawKafkaConnection(server.localAddress().getPort())) {
            Seen viaPort = ask(onBroker2);
            Seen viaBootstrap = ask(onBootstrap);
            assertEquals(OptionalInt.of(2), viaPort.addressedBroker());
            assertEquals(OptionalInt.empty(), viaBootstrap.addressedBroker(), "the bootstrap port stands for no broker");
            answer(viaPort);
            answer(viaBootstrap);
        }
    }

    @Test
    void aBrokerThatLeavesHasItsPortClosedAfterItsConnectionsAreAnswered() throws Exception {
        start();
        server.followBrokers(List.of(0, 1));
        try (RawKafkaConnection onBroker1 = new RawKafkaConnection(base + 1)) {
            RequestHeader[] header = new RequestHeader[1];
            Seen inFlight = ask(onBroker1, header);
            // When: broker 1 leaves the topology while its connection has a request in flight
            server.followBrokers(List.of(0));
            // Then: no new connection on its port; the open one gets its answer, then closes
            assertEquals(Set.of(0), server.brokerPortAddresses().keySet());
            assertFalse(reachable(base + 1));
            answer(inFlight);
            MetadataResponse response = onBroker1.read(header[0]);
            assertEquals(0, response.data().brokers().size());
            assertTrue(onBroker1.closedByProxy(), "the drained connection closes");
            // When it comes back, so does its port
            server.followBrokers(List.of(0, 1));
            assertTrue(reachable(base + 1));
        }
    }

    @Test
    void aPortThatIsTakenIsRetriedUntilItBinds() throws Exception {
        start();
        // Given: broker 1's port held by another process
        try (ServerSocket squatter = new ServerSocket()) {
            squatter.bind(new InetSocketAddress("127.0.0.1", base + 1));
            // When
            server.followBrokers(List.of(0, 1));
            // Then: broker 0 is served, broker 1 is not (yet)
            assertEquals(Set.of(0), server.brokerPortAddresses().keySet());
        }
        // When the port is free again, the next pass binds it
        server.followBrokers(List.of(0, 1));
        assertEquals(Set.of(0, 1), server.brokerPortAddresses().keySet());
    }

    @Test
    void stopAcceptingClosesTheBrokerPortsTooAndFollowingDoesNotReopenThem() throws Exception {
        start();
        server.followBrokers(List.of(0, 1));
        server.stopAccepting();
        server.followBrokers(List.of(0, 1));
        assertFalse(reachable(base));
        assertFalse(reachable(base + 1));
    }

    private static boolean reachable(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
