package org.kafscale.proxy.core.proxyprotocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.LoggerFactory;

/**
 * The gate before a listener's pipeline: it decides once who the client is (a PROXY protocol
 * header's source, the socket's peer, or nobody), and nothing after it sees the connection before
 * that.
 */
class ProxyProtocolGateTest {
    private static final Object DRAIN = new Object();
    private static final long HEADER_TIMEOUT_MILLIS = 1_000;
    private static final byte[] KAFKA_BYTES = {0, 0, 0, 14, 0, 18, 0, 3, 0, 0, 0, 1, 0, 4, 't', 'e', 's', 't'};

    private final List<SocketAddress> admitted = new ArrayList<>();
    private int refused;
    private boolean admits = true;
    private final Recorder rest = new Recorder();
    private EmbeddedChannel channel;

    @AfterEach
    void releaseEverything() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        rest.release();
    }

    @Test
    void v2ProxyHeaderMakesItsSourceTheClientAddress() throws Exception {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When a v2 header for 203.0.113.7:51000 arrives
        channel.writeInbound(v2Proxy("203.0.113.7", 51000));

        // Then the connection is admitted as 203.0.113.7:51000, and only then is active for the rest
        InetSocketAddress client = new InetSocketAddress(InetAddress.getByName("203.0.113.7"), 51000);
        assertEquals(List.of(client), admitted);
        assertEquals(client, ClientAddress.of(channel));
        assertEquals(1, rest.active);
        assertNull(channel.pipeline().get(ProxyProtocolGate.class), "the gate steps out once decided");
        assertNull(channel.pipeline().get(ProxyHeaderDetector.class));
        assertEquals(0, refused);
    }

    @Test
    void v1ProxyHeaderMakesItsSourceTheClientAddress() throws Exception {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When a v1 (text) header for an IPv6 client arrives, then the client's bytes
        channel.writeInbound(ascii("PROXY TCP6 2001:db8::7 2001:db8::1 51000 9092\r\n"));
        channel.writeInbound(Unpooled.wrappedBuffer(KAFKA_BYTES));

        // Then the client is the header's source, and its bytes follow unchanged
        InetSocketAddress client = new InetSocketAddress(InetAddress.getByName("2001:db8::7"), 51000);
        assertEquals(List.of(client), admitted);
        assertEquals(client, ClientAddress.of(channel));
        assertEquals(new String(KAFKA_BYTES, StandardCharsets.ISO_8859_1), rest.text());
    }

    @Test
    void v2LocalHeaderKeepsTheSocketAddress() {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When the load balancer's own health check sends a LOCAL header
        channel.writeInbound(encode(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.LOCAL,
                HAProxyProxiedProtocol.UNKNOWN, null, null, 0, 0)));

        // Then the connection is admitted as the socket's peer
        assertEquals(List.of(channel.remoteAddress()), admitted);
        assertEquals(channel.remoteAddress(), ClientAddress.of(channel));
        assertEquals(1, rest.active);
    }

    @Test
    void theProxysOwnLocalHeaderKeepsTheSocketAddress() {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When the proxy's own probe connects with the header it sends, then a request
        channel.writeInbound(Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(ProxyHeaders.localBytes()),
                Unpooled.wrappedBuffer(KAFKA_BYTES)));

        // Then it is admitted as itself, and its request goes on
        assertEquals(List.of(channel.remoteAddress()), admitted);
        assertEquals(new String(KAFKA_BYTES, StandardCharsets.ISO_8859_1), rest.text());
    }

    @Test
    void headerAndFirstFrameInOneBufferReachTheRestAsTheFrameOnlyAfterActive() {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When the header and the first Kafka frame arrive in one read
        ByteBuf header = v2Proxy("203.0.113.7", 51000);
        ByteBuf both = Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(KAFKA_BYTES));
        channel.writeInbound(both);

        // Then the rest sees active, then exactly the frame's bytes
        assertEquals(List.of("active", "read"), rest.events.subList(0, 2));
        assertEquals(new String(KAFKA_BYTES, StandardCharsets.ISO_8859_1), rest.text());
    }

    @Test
    void headerSplitOverReadsIsDecodedOnceWhole() {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);
        ByteBuf header = v2Proxy("203.0.113.7", 51000);

        // When it arrives five bytes first, then the rest with a frame
        channel.writeInbound(header.readRetainedSlice(5));
        int activeAfterFirst = rest.active;
        channel.writeInbound(Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(KAFKA_BYTES)));

        // Then the rest sees nothing until the header is whole
        assertEquals(0, activeAfterFirst);
        assertEquals(1, admitted.size());
        assertEquals(new String(KAFKA_BYTES, StandardCharsets.ISO_8859_1), rest.text());
    }

    @Test
    void missingHeaderUnderRequiredClosesAndCountsOnce() {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When a client sends a Kafka request straight away
        channel.writeInbound(Unpooled.wrappedBuffer(KAFKA_BYTES));

        // Then the connection is closed, counted once, and the rest never saw it
        assertFalse(channel.isOpen());
        assertEquals(1, refused);
        assertTrue(admitted.isEmpty());
        assertEquals(List.of(), rest.events);
    }

    @Test
    void missingHeaderUnderOptionalServesTheSocketAddress() {
        // Given a listener on which the header is optional
        open(ProxyProtocolMode.OPTIONAL);

        // When a client sends a Kafka request straight away
        channel.writeInbound(Unpooled.wrappedBuffer(KAFKA_BYTES));

        // Then it is admitted as the socket's peer and its bytes go on whole
        assertEquals(List.of(channel.remoteAddress()), admitted);
        assertEquals(1, rest.active);
        assertEquals(new String(KAFKA_BYTES, StandardCharsets.ISO_8859_1), rest.text());
        assertEquals(0, refused);
    }

    @Test
    void headerUnderOptionalIsUsed() throws Exception {
        // Given a listener on which the header is optional
        open(ProxyProtocolMode.OPTIONAL);

        // When a header comes first
        channel.writeInbound(v2Proxy("203.0.113.7", 51000));

        // Then its source is the client
        assertEquals(List.of(new InetSocketAddress(InetAddress.getByName("203.0.113.7"), 51000)), admitted);
    }

    @Test
    void malformedV2HeaderClosesAndCountsOnceThoughTheDecoderClosedFirst() {
        // Given a listener on which the header is optional
        open(ProxyProtocolMode.OPTIONAL);
        ByteBuf header = v2Proxy("203.0.113.7", 51000);
        header.setByte(12, 0x2F); // version 2, command 0xF: no such command

        // When the malformed header arrives
        channel.writeInbound(header);

        // Then the connection is closed, the refusal counted once, and the rest never saw it
        assertFalse(channel.isOpen());
        assertEquals(1, refused);
        assertEquals(List.of(), rest.events);
    }

    @Test
    void malformedV1HeaderClosesAndCountsOnce() {
        // Given a listener that requires the header
        open(ProxyProtocolMode.REQUIRED);

        // When a v1 header names something that is no address
        channel.writeInbound(ascii("PROXY TCP4 kafka.example.com 192.0.2.1 51000 9092\r\n"));

        // Then it is refused once
        assertFalse(channel.isOpen());
        assertEquals(1, refused);
        assertTrue(admitted.isEmpty());
    }

    @Test
    void drainBeforeTheHeaderClosesWithoutTellingTheRest() {
        // Given a connection whose header has not arrived
        open(ProxyProtocolMode.REQUIRED);

        // When the listener drains, and another event comes too
        channel.pipeline().fireUserEventTriggered("another event");
        channel.pipeline().fireUserEventTriggered(DRAIN);

        // Then the connection closes, the rest saw neither event nor active, and nothing is counted
        assertFalse(channel.isOpen());
        assertEquals(List.of(), rest.events);
        assertEquals(0, refused);
    }

    @Test
    void headerNotWholeInTimeClosesAndCounts() {
        // Given a connection that sent part of a header
        open(ProxyProtocolMode.REQUIRED);
        ByteBuf header = v2Proxy("203.0.113.7", 51000);
        channel.writeInbound(header.readRetainedSlice(8));
        header.release();

        // When the header timeout passes
        channel.advanceTimeBy(HEADER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();

        // Then it is closed and counted
        assertFalse(channel.isOpen());
        assertEquals(1, refused);
        assertEquals(List.of(), rest.events);
    }

    @Test
    void refusedAdmissionLeavesTheRestUntouched() {
        // Given a listener whose admission refuses the header's address (its per-address cap is reached)
        admits = false;
        open(ProxyProtocolMode.REQUIRED);

        // When a header and a frame arrive
        channel.writeInbound(Unpooled.wrappedBuffer(v2Proxy("203.0.113.7", 51000),
                Unpooled.wrappedBuffer(KAFKA_BYTES)));

        // Then the rest sees nothing (the admission counted and closed it)
        assertFalse(channel.isOpen());
        assertEquals(1, admitted.size());
        assertEquals(List.of(), rest.events);
        assertEquals(0, refused);
    }

    @Test
    void socketFailureBeforeTheHeaderClosesWithoutARefusal() {
        // Given a connection whose header has not arrived
        open(ProxyProtocolMode.REQUIRED);

        // When its socket fails
        channel.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));

        // Then it is closed, not counted as a bad header
        assertFalse(channel.isOpen());
        assertEquals(0, refused);
        assertEquals(List.of(), rest.events);
    }

    private void open(ProxyProtocolMode mode) {
        ProxyProtocolGate.Admission admission = new ProxyProtocolGate.Admission() {
            @Override
            public boolean admit(Channel ch, SocketAddress client) {
                admitted.add(client);
                if (!admits) {
                    ch.close();
                }
                return admits;
            }

            @Override
            public void refused() {
                refused++;
            }
        };
        channel = new EmbeddedChannel(new ProxyHeaderDetector(),
                new ProxyProtocolGate(mode, "KAFSCALE_TEST_PROXY_PROTOCOL", HEADER_TIMEOUT_MILLIS, admission,
                        event -> event == DRAIN,
                        RateLimitedLog.every10Seconds(LoggerFactory.getLogger(ProxyProtocolGateTest.class))),
                rest);
    }

    private static ByteBuf v2Proxy(String source, int port) {
        return encode(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.PROXY,
                HAProxyProxiedProtocol.TCP4, source, "192.0.2.1", port, 9092));
    }

    private static ByteBuf encode(HAProxyMessage header) {
        return Unpooled.wrappedBuffer(ProxyHeaders.encode(header));
    }

    private static ByteBuf ascii(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    /** What the rest of the pipeline sees: events in order, and the bytes read. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<String> events = new ArrayList<>();
        final ByteBuf bytes = Unpooled.buffer();
        int active;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active++;
            events.add("active");
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            events.add("read");
            ByteBuf read = (ByteBuf) msg;
            bytes.writeBytes(read);
            read.release();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            events.add("readComplete");
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add("event " + evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            events.add("inactive");
        }

        String text() {
            return bytes.toString(StandardCharsets.ISO_8859_1);
        }

        void release() {
            bytes.release();
        }
    }
}
