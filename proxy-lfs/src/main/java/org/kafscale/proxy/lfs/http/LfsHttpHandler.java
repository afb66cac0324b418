package org.kafscale.proxy.lfs.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One LFS connection: one request at a time, read on demand. Auto-read is off; the handler reads
 * while it waits for a request head, and while the current request's body is wanted (claimed by
 * the route and not paused). This is the backpressure path: a paused upload stops reading, the
 * TCP window fills, and the client slows down.
 */
final class LfsHttpHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOGGER = LoggerFactory.getLogger(LfsHttpHandler.class);

    private final LfsRouter router;
    private final Duration headerTimeout;
    private final Duration idleTimeout;
    private ChannelHandlerContext ctx;
    private NettyExchange current;
    private ScheduledFuture<?> waitingForHead;
    private boolean firstRequest = true;
    private boolean closing;
    private boolean refused;

    LfsHttpHandler(LfsRouter router, Duration headerTimeout, Duration idleTimeout) {
        this.router = router;
        this.headerTimeout = headerTimeout;
        this.idleTimeout = idleTimeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        this.ctx = context;
        awaitHead();
        context.fireChannelActive();
        readMore();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            startRequest(request);
        }
        if (msg instanceof HttpContent content) {
            if (current != null) {
                current.onContent(content);
            } else {
                content.release();
            }
        } else if (!(msg instanceof HttpRequest)) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void startRequest(HttpRequest request) {
        if (current != null) {
            // A pipelined request while one is in progress: clients of this API do not pipeline,
            // and answering in order would need a queue; close rather than mix two bodies.
            LOGGER.debug("pipelined HTTP request from {}; closing", ctx.channel().remoteAddress());
            refused = true;
            ctx.close();
            return;
        }
        cancelHeadTimer();
        firstRequest = false;
        if (request.decoderResult().isFailure()) {
            LOGGER.debug("malformed HTTP request: {}", request.decoderResult().cause().toString());
            ctx.close();
            return;
        }
        String requestId = request.headers().get("X-Request-ID", "").trim();
        if (requestId.isEmpty()) {
            requestId = UUID.randomUUID().toString();
        }
        String path = new QueryStringDecoder(request.uri()).path();
        current = new NettyExchange(this, ctx, request, path, requestId,
                ClientIp.of(request.headers(), ctx.channel().remoteAddress()));
        router.dispatch(current);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        readMore();
    }

    /** Reads again when the connection wants input: a new request, or body the route asked for. */
    void readMore() {
        if (ctx == null || !ctx.channel().isActive()) {
            return;
        }
        if (current == null || current.wantsBody()) {
            ctx.read();
        }
    }

    /**
     * The server is stopping: an idle connection closes now, a busy one after its response.
     * Runs on the event loop.
     */
    void shutdown() {
        closing = true;
        if (current == null && ctx != null) {
            ctx.close();
        }
    }

    /** Whether the connection closes after the current response. */
    boolean closing() {
        return closing;
    }

    /** The response of {@code exchange} was written; with keep-alive the next request may come. */
    void responseWritten(NettyExchange exchange, boolean keepAlive) {
        if (exchange != current || !keepAlive) {
            return;
        }
        current = null;
        awaitHead();
        readMore();
    }

    private void awaitHead() {
        cancelHeadTimer();
        Duration limit = firstRequest ? headerTimeout : idleTimeout;
        waitingForHead = ctx.executor().schedule(() -> {
            if (current == null) {
                ctx.close();
            }
        }, limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void cancelHeadTimer() {
        if (waitingForHead != null) {
            waitingForHead.cancel(false);
            waitingForHead = null;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object evt) {
        if (evt instanceof IdleStateEvent idle) {
            // Reader idle counts only while a body is being read (waiting on S3 or a broker is not
            // the client's fault); writer idle only while a response is on its way.
            boolean reading = current != null && current.wantsBody();
            boolean writing = current != null && current.responded();
            if (idle.state() == IdleState.READER_IDLE && reading
                    || idle.state() == IdleState.WRITER_IDLE && writing) {
                LOGGER.debug("closing idle LFS connection {} ({})", context.channel().remoteAddress(), idle.state());
                context.close();
            }
            return;
        }
        context.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        cancelHeadTimer();
        if (current != null) {
            current.abort(new ClosedChannelException());
        }
        context.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        LOGGER.debug("LFS connection {} failed: {}", context.channel().remoteAddress(), cause.toString());
        context.close();
    }
}
