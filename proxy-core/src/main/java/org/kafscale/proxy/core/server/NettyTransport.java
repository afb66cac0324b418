package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.ThreadFactory;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The one place that chooses Netty's I/O transport, so event loops and the channels placed on
 * them always match.
 */
public final class NettyTransport {
    private NettyTransport() {
    }

    public static EventLoopGroup newEventLoopGroup(int threads, String name) {
        ThreadFactory threadFactory = new DefaultThreadFactory(name, true);
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, NioIoHandler.newFactory());
    }

    public static Class<? extends ServerSocketChannel> serverChannelClass() {
        return NioServerSocketChannel.class;
    }

    public static Class<? extends SocketChannel> socketChannelClass(EventLoop loop) {
        return NioSocketChannel.class;
    }
}
