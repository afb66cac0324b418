package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ThreadFactory;

/**
 * The one place that chooses Netty's I/O transport, so event loops and the channels placed on
 * them always match.
 *
 * <p>Linux's native epoll transport where it loads (the benchmark showed the proxy's CPU per MiB
 * is mostly socket I/O, which epoll does with fewer system calls and no selector garbage), NIO
 * everywhere else. Netty's own {@code -Dio.netty.transport.noNative=true} forces NIO. Channel
 * classes follow the event loop they are placed on, not a global flag, so a loop of either kind
 * always gets channels of its own kind.
 */
public final class NettyTransport {
    private NettyTransport() {
    }

    public static EventLoopGroup newEventLoopGroup(int threads, String name) {
        ThreadFactory threadFactory = new DefaultThreadFactory(name, true);
        IoHandlerFactory io = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, io);
    }

    /** Server channels for a listener whose channels run on {@code group}. */
    public static Class<? extends ServerSocketChannel> serverChannelClass(EventLoopGroup group) {
        return isEpoll(group) ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public static Class<? extends SocketChannel> socketChannelClass(EventLoop loop) {
        return isEpoll(loop) ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The transport's name, for the start-up log line. */
    public static String describe(EventLoopGroup group) {
        return isEpoll(group) ? "epoll" : "nio";
    }

    private static boolean isEpoll(EventLoopGroup group) {
        return group instanceof IoEventLoopGroup io && io.isIoType(EpollIoHandler.class);
    }
}
