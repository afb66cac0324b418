package org.kafscale.proxy.core.server.sni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.server.ConnectionListener;
import org.kafscale.proxy.testkit.TestCertificates;
import org.slf4j.LoggerFactory;

/** The router with real TLS on both ends: a client SslHandler talking to the router's channel. */
class SniRouterTest {
    private static final SniHosts HOSTS = SniHosts.of("kafka.example.com", "broker-$(nodeId).kafka.example.com");
    private static final long TIMEOUT_MILLIS = 10_000;

    @TempDir
    static Path dir;
    private static SslContext server;
    private static SslContext client;

    private final List<String> refused = new ArrayList<>();
    private final Downstream downstream = new Downstream();
    private EmbeddedChannel serverChannel;
    private EmbeddedChannel clientChannel;

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates ca = TestCertificates.create(dir, "sni");
        TestCertificates.Identity identity = ca.issue("brokers", "CN=kafka.example.com",
                List.of("kafka.example.com", "*.kafka.example.com", "*.team-a.kafka.example.com"), List.of(), true);
        server = SslContextBuilder.forServer(identity.chainFile().toFile(), identity.keyFile().toFile()).build();
        client = SslContextBuilder.forClient().trustManager(ca.caFile().toFile()).build();
    }

    @AfterEach
    void close() {
        if (clientChannel != null) {
            clientChannel.finishAndReleaseAll();
        }
        serverChannel.finishAndReleaseAll();
    }

    @Test
    void aBrokersNameRoutesTheConnectionToThatBrokerAndTheHandshakeCompletes() {
        // Given a client that asks for broker 2 by name
        startServer();
        SslHandler tls = connect("broker-2.kafka.example.com");

        // When the handshake runs
        pump(() -> tls.handshakeFuture().isDone());

        // Then it succeeded, the connection addresses broker 2, and the handlers after the router
        // became active once, after the name was read
        assertTrue(tls.handshakeFuture().isSuccess(), String.valueOf(tls.handshakeFuture().cause()));
        assertEquals(OptionalInt.of(2), SniRouter.addressedBroker(serverChannel));
        assertEquals(1, downstream.activations);
        assertNotNull(serverChannel.pipeline().get(SniRouter.TLS_HANDLER));
        // and what the client sends arrives decrypted
        clientChannel.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII));
        pump(() -> !downstream.read.isEmpty());
        assertEquals("hello", String.join("", downstream.read));
        assertEquals(List.of(), refused);
    }

    @Test
    void aVirtualClustersBrokerNameAddressesThatBrokerInThatVirtualCluster() {
        // Given names of virtual cluster team-a under its suffix, beside the shared names
        startServer(HOSTS.withVirtualCluster("team-a", "team-a.kafka.example.com"));
        SslHandler tls = connect("broker-1.team-a.kafka.example.com");

        // When the handshake runs
        pump(() -> tls.handshakeFuture().isDone());

        // Then the connection addresses broker 1 of team-a, and goes on to the handlers after
        assertTrue(tls.handshakeFuture().isSuccess(), String.valueOf(tls.handshakeFuture().cause()));
        assertEquals(OptionalInt.of(1), SniRouter.addressedBroker(serverChannel));
        assertEquals(Optional.of("team-a"), SniRouter.addressedCluster(serverChannel));
        assertEquals(1, downstream.activations);
    }

    @Test
    void aNameUnderAVirtualClustersSuffixThatIsNotOneOfItsNamesIsRefused() {
        startServer(HOSTS.withVirtualCluster("team-a", "team-a.kafka.example.com"));
        SslHandler tls = connect("kafka-1.team-a.kafka.example.com");

        pump(() -> tls.handshakeFuture().isDone() && !serverChannel.isOpen());

        assertFalse(tls.handshakeFuture().isSuccess());
        assertEquals(List.of("sni"), refused);
        assertEquals(0, downstream.activations);
    }

    @Test
    void theBootstrapNameAddressesNoBroker() {
        startServer();
        SslHandler tls = connect("KAFKA.example.com");

        pump(() -> tls.handshakeFuture().isDone());

        assertTrue(tls.handshakeFuture().isSuccess(), String.valueOf(tls.handshakeFuture().cause()));
        assertEquals(OptionalInt.empty(), SniRouter.addressedBroker(serverChannel));
        assertEquals(Optional.empty(), SniRouter.addressedCluster(serverChannel));
        assertEquals(1, downstream.activations);
    }

    @Test
    void aNameThatMatchesNothingFailsTheHandshakeWithUnrecognizedNameAndIsCounted() {
        // Given a client asking for a name that is neither the bootstrap nor a broker's
        startServer();
        SslHandler tls = connect("other.kafka.example.com");

        // When
        pump(() -> tls.handshakeFuture().isDone() && !serverChannel.isOpen());

        // Then the client's TLS stack reports the alert, the connection is closed and counted, and
        // the handlers after the router never saw it
        assertFalse(tls.handshakeFuture().isSuccess());
        // (the JDK says "unrecognized_name", BoringSSL "TLSV1_ALERT_UNRECOGNIZED_NAME")
        assertTrue(String.valueOf(tls.handshakeFuture().cause()).toLowerCase(Locale.ROOT).contains("unrecognized_name"),
                String.valueOf(tls.handshakeFuture().cause()));
        assertEquals(List.of("sni"), refused);
        assertEquals(0, downstream.activations);
    }

    @Test
    void aPlaintextKafkaClientIsRefused() {
        startServer();

        // A Kafka frame's size prefix is no TLS record
        serverChannel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 20, 0, 18, 0, 3, 0, 0, 0, 1}));

        assertFalse(serverChannel.isOpen());
        assertEquals(List.of("sni"), refused);
        assertEquals(0, downstream.activations);
        ByteBuf alert = serverChannel.readOutbound();
        assertEquals(0x15, alert.getByte(0));
        alert.release();
    }

    @Test
    void noClientHelloWithinTheTimeoutClosesTheConnection() {
        startServer();

        serverChannel.advanceTimeBy(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        serverChannel.runScheduledPendingTasks();

        assertFalse(serverChannel.isOpen());
        assertEquals(List.of("sni"), refused);
        assertEquals(0, downstream.activations);
    }

    @Test
    void aDrainBeforeTheNameIsReadClosesWithoutReachingTheHandlersAfter() {
        startServer();

        serverChannel.pipeline().fireUserEventTriggered("drain");
        serverChannel.runPendingTasks();

        assertFalse(serverChannel.isOpen());
        assertEquals(0, downstream.activations);
        assertEquals(0, downstream.events);
        assertEquals(0, downstream.inactivations);
    }

    private void startServer() {
        startServer(HOSTS);
    }

    private void startServer(SniHosts hosts) {
        ConnectionListener listener = new ConnectionListener() {
            @Override
            public void refused(String limit) {
                refused.add(limit);
            }
        };
        serverChannel = new EmbeddedChannel(new SniRouter(hosts, server::newHandler, TIMEOUT_MILLIS,
                new RateLimitedLog(LoggerFactory.getLogger(SniRouterTest.class), 1, TimeUnit.NANOSECONDS), listener),
                downstream);
    }

    private SslHandler connect(String serverName) {
        clientChannel = new EmbeddedChannel();
        SslHandler tls = client.newHandler(clientChannel.alloc(), serverName, 9092);
        clientChannel.pipeline().addLast(tls).addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                // A failed handshake: the test reads it from the handshake future.
            }
        });
        return tls;
    }

    /** Moves bytes both ways until {@code done}, with a deadline. */
    private void pump(BooleanSupplier done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("the TLS exchange did not finish");
            }
            boolean moved = move(clientChannel, serverChannel) | move(serverChannel, clientChannel);
            clientChannel.runPendingTasks();
            serverChannel.runPendingTasks();
            if (!moved) {
                Thread.onSpinWait();
            }
        }
    }

    private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        Object message;
        while ((message = from.readOutbound()) != null) {
            moved = true;
            if (to.isOpen()) {
                to.writeInbound(message);
            } else {
                ReferenceCountUtil.release(message);
            }
        }
        return moved;
    }

    /** What the handlers after the router see. */
    private static final class Downstream extends ChannelInboundHandlerAdapter {
        int activations;
        int inactivations;
        int events;
        final List<String> read = new ArrayList<>();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            activations++;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactivations++;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            events++;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            ByteBuf bytes = (ByteBuf) message;
            read.add(bytes.toString(StandardCharsets.US_ASCII));
            bytes.release();
        }
    }
}
