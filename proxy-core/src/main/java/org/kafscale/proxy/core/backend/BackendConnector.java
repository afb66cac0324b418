package org.kafscale.proxy.core.backend;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import java.time.Duration;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.server.FrameBuffers;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * Opens {@link BackendChannel}s to brokers on a given event loop. The pipeline here is the only
 * backend pipeline: flushes gathered while the broker's answers are being read, and sent at once
 * otherwise (a deferred flush would wait for a read that may not come), frame decoder,
 * the size prefixer (the one place that writes sizes), and the answer dispatcher.
 */
public final class BackendConnector {
    private final int maxFrameBytes;
    private final Duration connectTimeout;
    private final BackendObserver observer;

    public BackendConnector(int maxFrameBytes, Duration connectTimeout) {
        this(maxFrameBytes, connectTimeout, BackendObserver.NONE);
    }

    public BackendConnector(int maxFrameBytes, Duration connectTimeout, BackendObserver observer) {
        this.maxFrameBytes = maxFrameBytes;
        this.connectTimeout = connectTimeout;
        this.observer = observer;
    }

    /** Connects on {@code loop}, so the channel shares the caller's thread and needs no locks. */
    public Future<BackendChannel> connect(EventLoop loop, BrokerEndpoint broker) {
        Promise<BackendChannel> promise = loop.newPromise();
        BackendResponseHandler handler = new BackendResponseHandler();
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(NettyTransport.socketChannelClass(loop))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, FrameBuffers.allocator())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("flushes", new FlushConsolidationHandler(
                        FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, false))
                                .addLast("frameDecoder", new KafkaFrameDecoder(maxFrameBytes, broker.toString(), maxFrameBytes))
                                .addLast("framePrepender", new LengthFieldPrepender(4))
                                .addLast("answers", handler);
                    }
                });
        ChannelFuture connect = bootstrap.connect(broker.host(), broker.port());
        Channel channel = connect.channel();
        BackendChannel backend = new BackendChannel(channel, broker);
        handler.bind(backend);
        connect.addListener(f -> {
            if (f.isSuccess()) {
                observer.channelOpened(broker);
                SocketAddress local = channel.localAddress();
                SocketAddress remote = channel.remoteAddress();
                observer.channelConnected(broker, local, remote);
                channel.closeFuture().addListener(closed -> {
                    observer.channelClosed(broker);
                    observer.channelDisconnected(broker, local, remote);
                });
                promise.setSuccess(backend);
            } else {
                channel.close();
                promise.setFailure(new BackendException(BackendException.Cause.CONNECT_FAILED, false,
                        "cannot connect to " + broker + ": " + f.cause()));
            }
        });
        return promise;
    }
}
