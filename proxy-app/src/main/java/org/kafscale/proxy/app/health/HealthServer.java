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
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.kafscale.proxy.core.server.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health listener: {@code /livez} answers 200 while the process serves, {@code /readyz} 200
 * only while {@link Readiness} says so (else 503), with the reason in the body; {@code /health}
 * the state as JSON ({@link HealthStates}: starting, ready, degraded, draining, not_ready, with
 * reasons and since when; 200 while ready or degraded, else 503); {@code /metrics}
 * is the Prometheus exposition ({@link MetricsPage}: all of it, or the families named by {@code name[]}). Only GET and HEAD are answered (405 otherwise).
 *
 * <p>It runs on one event loop of its own, so neither a busy Kafka listener nor a large scrape
 * delays the other. A connection must send each complete request within {@link #HEAD_TIMEOUT} of
 * opening and within {@link #IDLE_TIMEOUT} of its previous answer, else it is closed: a client that
 * opens connections and sends nothing (or a byte at a time) cannot hold them.
 */
public final class HealthServer implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(HealthServer.class);
    private static final int MAX_REQUEST_BYTES = 16 * 1024;
    /** Kubelet and Prometheus send their request at once; Go's ReadHeaderTimeout is used likewise. */
    static final Duration HEAD_TIMEOUT = Duration.ofSeconds(10);
    /** Longer than a scrape interval, so a scraper's keep-alive connection is reused. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);

    private final Channel channel;
    private final EventLoopGroup loop;

    private HealthServer(Channel channel, EventLoopGroup loop) {
        this.channel = channel;
        this.loop = loop;
    }

    public static HealthServer start(InetSocketAddress bind, Supplier<Readiness.Status> ready, MetricsPage metrics)
            throws InterruptedException {
        HealthStates states = new HealthStates(ready, () -> false, List.of(), java.time.Clock.systemUTC());
        return start(bind, ready, states::current, metrics, Optional.empty());
    }

    /**
     * As above, with {@code /health} answering {@code health}'s JSON (200 while serving, else 503),
     * and {@code /admin/*} answered by {@code admin} when given.
     */
    public static HealthServer start(InetSocketAddress bind, Supplier<Readiness.Status> ready,
                                     Supplier<HealthStates.Health> health, MetricsPage metrics,
                                     Optional<AdminApi> admin) throws InterruptedException {
        EventLoopGroup loop = NettyTransport.newEventLoopGroup(1, "health-io");
        try {
            Channel channel = new ServerBootstrap()
                    .group(loop)
                    .channel(NettyTransport.serverChannelClass(loop))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline()
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                    .addLast("probes", new ProbeHandler(ready, health, metrics, admin));
                        }
                    })
                    .bind(bind).sync().channel();
            LOGGER.info("Health listener bound to {}", channel.localAddress());
            return new HealthServer(channel, loop);
        } catch (Exception e) {
            // Exception, not RuntimeException: a bind that fails throws the socket's IOException
            // undeclared, and the loop must not outlive it.
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class ProbeHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<Readiness.Status> ready;
        private final Supplier<HealthStates.Health> health;
        private final MetricsPage metrics;
        private final Optional<AdminApi> admin;
        /** Closes the connection unless the next request arrives in time. */
        private ScheduledFuture<?> deadline;

        ProbeHandler(Supplier<Readiness.Status> ready, Supplier<HealthStates.Health> health, MetricsPage metrics,
                     Optional<AdminApi> admin) {
            this.ready = ready;
            this.health = health;
            this.metrics = metrics;
            this.admin = admin;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            awaitRequest(ctx, HEAD_TIMEOUT);
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancelDeadline();
            ctx.fireChannelInactive();
        }

        private void awaitRequest(ChannelHandlerContext ctx, Duration limit) {
            cancelDeadline();
            deadline = ctx.executor().schedule(() -> {
                ctx.close();
            }, limit.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void cancelDeadline() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            cancelDeadline();
            if (request.decoderResult().isFailure()) {
                respond(ctx, text(HttpResponseStatus.BAD_REQUEST, "bad request\n"), false);
                return;
            }
            if (admin.isPresent() && request.uri().startsWith(AdminApi.PREFIX)) {
                boolean keepAlive = HttpUtil.isKeepAlive(request);
                // A reload answers from another thread; the answer is written on this loop.
                admin.get().answer(request.method(), new QueryStringDecoder(request.uri()).path(),
                                request.headers().get(HttpHeaderNames.AUTHORIZATION))
                        .whenComplete((response, error) -> ctx.executor().execute(() -> respond(ctx,
                                response != null ? response : text(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                                        "the admin request failed: " + error + "\n"), keepAlive)));
                return;
            }
            boolean head = HttpMethod.HEAD.equals(request.method());
            if (!head && !HttpMethod.GET.equals(request.method())) {
                FullHttpResponse refused = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
                refused.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
                respond(ctx, refused, false);
                return;
            }
            QueryStringDecoder uri = new QueryStringDecoder(request.uri());
            FullHttpResponse response;
            switch (uri.path()) {
                case "/livez" -> response = text(HttpResponseStatus.OK, "ok\n");
                case "/readyz" -> {
                    Readiness.Status status = ready.get();
                    response = text(status.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                            status.body());
                }
                case "/health" -> {
                    HealthStates.Health now = health.get();
                    response = text(now.state().serving() ? HttpResponseStatus.OK
                            : HttpResponseStatus.SERVICE_UNAVAILABLE, now.json());
                    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                }
                case "/metrics" -> response = text(HttpResponseStatus.OK, metrics.render(
                        uri.parameters().getOrDefault(MetricsPage.NAME_PARAMETER, List.of())));
                default -> response = text(HttpResponseStatus.NOT_FOUND, "not found\n");
            }
            if (head) {
                // Same headers (Content-Length included), no body.
                response.content().clear();
            }
            respond(ctx, response, HttpUtil.isKeepAlive(request));
        }

        private void respond(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
            HttpUtil.setKeepAlive(response, keepAlive);
            var write = ctx.writeAndFlush(response);
            if (keepAlive) {
                awaitRequest(ctx, IDLE_TIMEOUT);
            } else {
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
