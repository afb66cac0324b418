package org.kafscale.proxy.app.health;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.kafscale.proxy.core.server.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health listener: {@code /livez} answers 200 while the process serves, {@code /readyz} 200
 * only while {@link Readiness} says so (else 503), with the reason in the body; {@code /metrics}
 * is the Prometheus exposition.
 */
public final class HealthServer implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(HealthServer.class);
    private static final int MAX_REQUEST_BYTES = 16 * 1024;

    private final Channel channel;

    private HealthServer(Channel channel) {
        this.channel = channel;
    }

    public static HealthServer start(InetSocketAddress bind, EventLoopGroup group, Supplier<Readiness.Status> ready,
                                     Supplier<String> metrics)
            throws InterruptedException {
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(NettyTransport.serverChannelClass(group))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("http", new HttpServerCodec())
                                .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast("probes", new ProbeHandler(ready, metrics));
                    }
                })
                .bind(bind).sync().channel();
        LOGGER.info("Health listener bound to {}", channel.localAddress());
        return new HealthServer(channel);
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    private static final class ProbeHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<Readiness.Status> ready;
        private final Supplier<String> metrics;

        ProbeHandler(Supplier<Readiness.Status> ready, Supplier<String> metrics) {
            this.ready = ready;
            this.metrics = metrics;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            String path = new QueryStringDecoder(request.uri()).path();
            FullHttpResponse response;
            switch (path) {
                case "/livez" -> response = text(HttpResponseStatus.OK, "ok\n");
                case "/readyz" -> {
                    Readiness.Status status = ready.get();
                    response = text(status.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                            status.body());
                }
                case "/metrics" -> response = text(HttpResponseStatus.OK, metrics.get());
                default -> response = text(HttpResponseStatus.NOT_FOUND, "not found\n");
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpUtil.setKeepAlive(response, keepAlive);
            var write = ctx.writeAndFlush(response);
            if (!keepAlive) {
                write.addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static FullHttpResponse text(HttpResponseStatus status, String body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            HttpUtil.setContentLength(response, response.content().readableBytes());
            return response;
        }
    }
}
