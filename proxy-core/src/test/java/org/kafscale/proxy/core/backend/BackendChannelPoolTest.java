package org.kafscale.proxy.core.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.server.FrameBuffers;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.testkit.Eventually;

/**
 * A pool's writability, against a real socket whose far end never reads: the client connection
 * stops reading requests while one of its broker channels cannot take more.
 */
class BackendChannelPoolTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final int FRAME_BYTES = 1024 * 1024;

    private final EventLoopGroup group = NettyTransport.newEventLoopGroup(1, "pool-test");
    private final EventLoop loop = group.next();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A pool on the test's loop that counts the writability changes it reports. */
    private BackendChannelPool poolCounting(AtomicInteger changes) throws InterruptedException {
        BackendChannelPool pool = new BackendChannelPool(loop, new BackendConnector(FRAME_BYTES, Duration.ofSeconds(5)));
        loop.submit(() -> pool.onWritabilityChanged(changes::incrementAndGet)).sync();
        return pool;
    }

    /** The pool's channel to the broker listening on {@code broker} (connecting once it accepts). */
    private Future<BackendChannel> acquire(BackendChannelPool pool, ServerSocket broker) throws InterruptedException {
        BrokerEndpoint endpoint = new BrokerEndpoint(1, "127.0.0.1", broker.getLocalPort(), null);
        return loop.submit(() -> pool.acquire(endpoint)).sync().getNow();
    }

    @Test
    void poolIsUnwritableWhileABrokerDoesNotTakeRequestsAndSaysSo() throws Exception {
        // Given a broker that accepts a connection and never reads, and a pool connected to it
        try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicInteger changes = new AtomicInteger();
            BackendChannelPool pool = poolCounting(changes);
            Future<BackendChannel> channel = acquire(pool, broker);
            try (Socket accepted = broker.accept()) {
                channel.sync();

                // When 64 requests of a MiB are written to it
                loop.submit(() -> {
                    for (int i = 0; i < 64; i++) {
                        ByteBuf frame = FrameBuffers.allocator().buffer(FRAME_BYTES).writeZero(FRAME_BYTES);
                        channel.getNow().request(frame, DEADLINE.toMillis());
                    }
                }).sync();

                // Then the pool turns unwritable and tells its listener
                Eventually.await(DEADLINE, "the pool unwritable", () -> changes.get() >= 1
                        && !loop.submit(pool::isWritable).syncUninterruptibly().getNow());
            } finally {
                loop.submit(() -> pool.closeAll("test over")).sync();
            }
            // And once its channel is gone, it is writable again
            Eventually.await(DEADLINE, "the pool writable", () -> loop.submit(pool::isWritable)
                    .syncUninterruptibly().getNow());
            assertTrue(changes.get() >= 2);
        }
    }

    @Test
    void aLargeRequestThatTheBrokerTakesLeavesThePoolWritable() throws Exception {
        // Given a broker that reads everything, and a pool connected to it
        try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicInteger changes = new AtomicInteger();
            BackendChannelPool pool = poolCounting(changes);
            Future<BackendChannel> channel = acquire(pool, broker);
            int requestBytes = 256 * 1024; // four times Netty's default high water mark
            try (Socket accepted = broker.accept()) {
                channel.sync();

                // When a Produce-sized request is written and the broker has read all of it
                loop.submit(() -> {
                    ByteBuf frame = FrameBuffers.allocator().buffer(requestBytes).writeZero(requestBytes);
                    channel.getNow().request(frame, DEADLINE.toMillis());
                }).sync();
                accepted.getInputStream().readNBytes(requestBytes + Integer.BYTES);

                // Then the client connection was never told to stop reading for it
                assertEquals(0, loop.submit(changes::get).sync().getNow(), "writability changes");
                assertTrue(loop.submit(pool::isWritable).sync().getNow());
            } finally {
                loop.submit(() -> pool.closeAll("test over")).sync();
            }
        }
    }

    @Test
    void aChannelHeldBackWhileDeliveringStaysUnreadUntilReleased() throws Exception {
        // Given a pool connected to a broker, with one request out
        try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            BackendChannelPool pool = poolCounting(new AtomicInteger());
            Future<BackendChannel> channel = acquire(pool, broker);
            try (Socket accepted = broker.accept()) {
                channel.sync();
                AtomicInteger heldWhileDelivering = new AtomicInteger();
                loop.submit(() -> {
                    // Outside a delivery, holding back stops nothing
                    pool.holdBackDelivering();
                    ByteBuf request = FrameBuffers.allocator().buffer(12).writeShort(18).writeShort(0).writeInt(0)
                            .writeShort(-1);
                    channel.getNow().request(request, DEADLINE.toMillis()).addListener(answered -> {
                        ((ByteBuf) answered.getNow()).release();
                        // When whoever the answer reaches says it must wait for an earlier one
                        pool.holdBackDelivering();
                        heldWhileDelivering.set(channel.getNow().channel().config().isAutoRead() ? 1 : 2);
                    });
                }).sync();
                assertTrue(loop.submit(() -> channel.getNow().channel().config().isAutoRead()).sync().getNow());
                java.io.DataInputStream in = new java.io.DataInputStream(accepted.getInputStream());
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                int correlationId = java.nio.ByteBuffer.wrap(frame, 4, 4).getInt();
                accepted.getOutputStream().write(java.nio.ByteBuffer.allocate(9).putInt(5).putInt(correlationId)
                        .put((byte) 0).array());

                // Then that channel is not read, not even when the client's answers flow again
                Eventually.await(DEADLINE, "the answer delivered", () -> heldWhileDelivering.get() != 0);
                assertEquals(2, heldWhileDelivering.get());
                loop.submit(() -> pool.setAutoRead(true)).sync();
                assertEquals(false, loop.submit(() -> channel.getNow().channel().config().isAutoRead()).sync().getNow());

                // And released, it is read again
                loop.submit(pool::releaseHeldBack).sync();
                assertTrue(loop.submit(() -> channel.getNow().channel().config().isAutoRead()).sync().getNow());
            } finally {
                loop.submit(() -> pool.closeAll("test over")).sync();
            }
        }
    }

    @Test
    void pipelinedLongPollFetchesShareTheCappedPollChannelsWhileTheyConnect() throws Exception {
        // Given a pool with no channel to a broker yet
        try (ServerSocket broker = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            BackendChannelPool pool = poolCounting(new AtomicInteger());
            BrokerEndpoint endpoint = new BrokerEndpoint(1, "127.0.0.1", broker.getLocalPort(), null);
            try {
                // When 40 long-poll Fetches ask for an idle channel before any has connected
                java.util.Set<Future<BackendChannel>> handedOut = loop.submit(() -> {
                    java.util.Set<Future<BackendChannel>> seen = new java.util.HashSet<>();
                    for (int i = 0; i < 40; i++) {
                        seen.add(pool.acquireIdle(endpoint));
                    }
                    return seen;
                }).sync().getNow();

                // Then they share four channels (each holds at most one answer as it arrives),
                // not one broker connection (and answer buffer) per Fetch
                assertEquals(4, handedOut.size(), "broker channels opened");
            } finally {
                loop.submit(() -> pool.closeAll("test over")).sync();
            }
        }
    }
}
