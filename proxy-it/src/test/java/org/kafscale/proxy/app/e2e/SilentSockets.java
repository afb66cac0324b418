package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * Connections that never send a byte, each watched for the far side's close: the time from its
 * connect to the end of stream (or a reset) it then reads is how long the proxy held it. One
 * selector watches them all, also while the later ones are still connecting, so a close is seen
 * when it happens, not when a test gets round to reading that socket.
 */
final class SilentSockets implements AutoCloseable {
    /** Connects between two looks at the selector, so closes are noted while connecting goes on. */
    private static final int CONNECTS_PER_LOOK = 50;

    private final Selector selector;
    private final int count;
    private int closed;
    private long longestHeldNanos;

    private SilentSockets(int count) throws IOException {
        this.selector = Selector.open();
        this.count = count;
    }

    /** Opens {@code count} connections from {@code fromAddress} to {@code target}, sending nothing. */
    static SilentSockets open(int count, String fromAddress, InetSocketAddress target) throws IOException {
        SilentSockets sockets = new SilentSockets(count);
        for (int i = 0; i < count; i++) {
            SocketChannel channel = SocketChannel.open();
            channel.bind(new InetSocketAddress(fromAddress, 0));
            channel.connect(target);
            channel.configureBlocking(false);
            channel.register(sockets.selector, SelectionKey.OP_READ, System.nanoTime());
            if (i % CONNECTS_PER_LOOK == 0) {
                sockets.look(0);
            }
        }
        return sockets;
    }

    /** Waits until every connection was closed by the far side, or {@code deadline} passed; the number closed. */
    int awaitAllClosed(Duration deadline) throws IOException {
        long end = System.nanoTime() + deadline.toNanos();
        for (long left = deadline.toMillis(); closed < count && left > 0;
                left = Duration.ofNanos(end - System.nanoTime()).toMillis()) {
            look(left);
        }
        return closed;
    }

    /** The longest any closed connection was held open. */
    Duration longestHeld() {
        return Duration.ofNanos(longestHeldNanos);
    }

    /** Notes the connections that read an end of stream or a reset, waiting up to {@code millis} (0: not at all). */
    private void look(long millis) throws IOException {
        int ready = millis == 0 ? selector.selectNow() : selector.select(millis);
        if (ready == 0) {
            return;
        }
        long now = System.nanoTime();
        ByteBuffer buffer = ByteBuffer.allocate(64);
        for (SelectionKey key : selector.selectedKeys()) {
            if (closedByFarSide((SocketChannel) key.channel(), buffer)) {
                longestHeldNanos = Math.max(longestHeldNanos, now - (long) key.attachment());
                closed++;
                key.channel().close();
            }
        }
        selector.selectedKeys().clear();
    }

    private static boolean closedByFarSide(SocketChannel channel, ByteBuffer buffer) {
        buffer.clear();
        try {
            return channel.read(buffer) < 0;
        } catch (IOException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        for (SelectionKey key : selector.keys()) {
            key.channel().close();
        }
        selector.close();
    }
}
