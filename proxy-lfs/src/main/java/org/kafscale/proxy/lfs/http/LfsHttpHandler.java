package org.kafscale.proxy.lfs.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;
import org.kafscale.proxy.core.security.tls.CertificatePrincipals;
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
    private static final RateLimitedLog MALFORMED_LOG = RateLimitedLog.every10Seconds(LOGGER);
    /** How long a refused connection may go on sending before it is closed. */
    private static final Duration LINGER = Duration.ofSeconds(2);
    /** Kafka's default mapping: the certificate subject as it is. */
    private static final CertificatePrincipals CERTIFICATE_PRINCIPALS = new CertificatePrincipals("DEFAULT");

    private final LfsRouter router;
    private final Duration headerTimeout;
    private final Duration idleTimeout;
    private final TrustedProxies trustedProxies;
    private ChannelHandlerContext ctx;
    private NettyExchange current;
    private ScheduledFuture<?> waitingForHead;
    private boolean firstRequest = true;
    private boolean closing;
    private boolean refused;
    private boolean lingering;

    LfsHttpHandler(LfsRouter router, Duration headerTimeout, Duration idleTimeout, TrustedProxies trustedProxies) {
        this.router = router;
        this.trustedProxies = trustedProxies;
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
            if (refused) {
                // A malformed request's remains (a failed full request carries content) go nowhere.
                ReferenceCountUtil.release(msg);
                return;
            }
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
            LOGGER.debug("pipelined HTTP request from {}; closing", ClientAddress.of(ctx.channel()));
            refused = true;
            ctx.close();
            return;
        }
        cancelHeadTimer();
        firstRequest = false;
        if (request.decoderResult().isFailure()) {
            refuseMalformed(request);
            return;
        }
        String sentId = request.headers().get("X-Request-ID", "").trim();
        LfsException badHeader = headerProblem(request, sentId);
        // A refused id is not echoed: the answer carries a generated one.
        String requestId = sentId.isEmpty() || badHeader != null ? UUID.randomUUID().toString() : sentId;
        String path = new QueryStringDecoder(request.uri()).path();
        current = new NettyExchange(this, ctx, request, path, requestId,
                ClientIp.of(request.headers(), ClientAddress.of(ctx.channel()), trustedProxies), principal());
        if (badHeader != null) {
            current.fail(badHeader);
            return;
        }
        router.dispatch(current);
    }

    /**
     * The verified client certificate's principal on a TLS connection that has one (Kafka's
     * {@code DEFAULT} mapping: {@code User:} and the subject in RFC 2253 form), else empty.
     */
    private Optional<String> principal() {
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        if (tls == null) {
            return Optional.empty();
        }
        KafkaPrincipal principal = CERTIFICATE_PRINCIPALS.of(tls.engine().getSession());
        return KafkaPrincipal.ANONYMOUS.equals(principal) ? Optional.empty() : Optional.of(principal.toString());
    }

    /** 400 for a header value with a control character or an oversized {@code X-Request-ID}, else null. */
    private static LfsException headerProblem(HttpRequest request, String requestId) {
        String withControl = HeaderValues.firstWithControl(request.headers());
        if (withControl != null) {
            return LfsException.badRequest("invalid_request", "header " + withControl + " holds a control character");
        }
        try {
            HeaderValues.check("X-Request-ID", requestId, HeaderValues.MAX_REQUEST_ID);
            return null;
        } catch (LfsException e) {
            return e;
        }
    }

    /**
     * What Netty's decoder could not parse (a bad or duplicate Content-Length, Content-Length with
     * Transfer-Encoding, a header block or request line over its limit) is answered, so the client
     * and the operator learn why, and the connection closes: the decoder reads nothing more.
     */
    private void refuseMalformed(HttpRequest request) {
        Throwable cause = request.decoderResult().cause();
        LfsException answer = malformedAnswer(cause);
        MALFORMED_LOG.info("refused a malformed HTTP request from {} with {}: {}", ClientAddress.of(ctx.channel()),
                answer.status(), String.valueOf(cause));
        refused = true;
        current = new NettyExchange(this, ctx, request, "/", UUID.randomUUID().toString(),
                ClientIp.of(request.headers(), ClientAddress.of(ctx.channel()), trustedProxies), principal());
        current.refuse(answer);
    }

    static LfsException malformedAnswer(Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            return new LfsException(431, "headers_too_large", "the request header block is too large");
        }
        if (cause instanceof TooLongHttpLineException) {
            return new LfsException(414, "uri_too_long", "the request line is too long");
        }
        if (cause instanceof TooLongFrameException) {
            return new LfsException(413, "payload_too_large", "a part of the request is too large");
        }
        return LfsException.badRequest("malformed_request", "malformed HTTP request: " + firstLine(cause));
    }

    private static String firstLine(Throwable cause) {
        String message = cause == null || cause.getMessage() == null ? "unreadable" : cause.getMessage();
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return line.length() > 200 ? line.substring(0, 200) : line;
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
        if (current == null || current.wantsBody() || lingering) {
            ctx.read();
        }
    }

    /**
     * After the answer to input the decoder could not parse: closes the sending side at once and
     * the connection once the client stops sending (or after {@link #LINGER}), dropping what still
     * arrives. Closing both at once would reset a client still sending, and a reset can discard the
     * answer before the client reads it. TLS closes at once: its close needs the sending side.
     */
    void lingerAndClose() {
        if (!(ctx.channel() instanceof SocketChannel socket) || ctx.pipeline().get(SslHandler.class) != null
                || !socket.isActive()) {
            ctx.close();
            return;
        }
        lingering = true;
        cancelHeadTimer();
        waitingForHead = ctx.executor().schedule(() -> {
            ctx.close();
        }, LINGER.toMillis(), TimeUnit.MILLISECONDS);
        socket.shutdownOutput().addListener(f -> {
            if (!f.isSuccess()) {
                ctx.close();
            }
        });
        readMore();
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

    Cors cors() {
        return router.cors();
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
                LOGGER.debug("closing idle LFS connection {} ({})", ClientAddress.of(context.channel()), idle.state());
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
        LOGGER.debug("LFS connection {} failed: {}", ClientAddress.of(context.channel()), cause.toString());
        context.close();
    }
}
