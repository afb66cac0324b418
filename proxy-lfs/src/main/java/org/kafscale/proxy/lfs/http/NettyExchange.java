package org.kafscale.proxy.lfs.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kafscale.proxy.lfs.Async;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request on an LFS connection. Body state lives on the event loop; public methods hop there.
 * Body content that arrives before the route claims the body (it may first connect to a broker)
 * is held, retained, until it does: at most what one socket read decoded, since the connection
 * reads nothing more until then.
 */
final class NettyExchange implements LfsExchange {
    private static final Logger LOGGER = LoggerFactory.getLogger(NettyExchange.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int FILE_CHUNK = 64 * 1024;
    /** Like Go's net/http: after an early answer, read and drop this much of the unread body so the client sees the answer. */
    private static final long MAX_DRAIN_BYTES = 4L * 1024 * 1024;

    private final LfsHttpHandler connection;
    private final ChannelHandlerContext ctx;
    private final HttpRequest request;
    private final String path;
    private final String requestId;
    private final String clientIp;
    private final Optional<String> principal;
    private final boolean lfsPath;
    private final AtomicBoolean responded = new AtomicBoolean();
    private final ArrayDeque<HttpContent> early = new ArrayDeque<>();

    private boolean claimed;
    private boolean done;
    private boolean paused;
    private boolean discarding;
    private boolean draining;
    private boolean malformed;
    private long drained;
    private BodySink sink;
    private ByteArrayOutputStream aggregate;
    private int aggregateLimit;
    private CompletableFuture<byte[]> aggregated;

    NettyExchange(LfsHttpHandler connection, ChannelHandlerContext ctx, HttpRequest request, String path,
                  String requestId, String clientIp, Optional<String> principal) {
        this.connection = connection;
        this.principal = principal;
        this.ctx = ctx;
        this.request = request;
        this.path = path;
        this.requestId = requestId;
        this.clientIp = clientIp;
        this.lfsPath = path.startsWith("/lfs/") || path.equals("/lfs");
    }

    @Override
    public HttpMethod method() {
        return request.method();
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public HttpHeaders headers() {
        return request.headers();
    }

    @Override
    public String requestId() {
        return requestId;
    }

    @Override
    public String clientIp() {
        return clientIp;
    }

    @Override
    public Optional<String> principal() {
        return principal;
    }

    @Override
    public EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    // ---- the body ----

    @Override
    public CompletableFuture<byte[]> readBody(int maxBytes) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        onLoop(() -> {
            aggregate = new ByteArrayOutputStream();
            aggregateLimit = maxBytes;
            aggregated = result;
            claim();
        });
        return result;
    }

    @Override
    public void streamBody(BodySink bodySink) {
        onLoop(() -> {
            sink = bodySink;
            claim();
        });
    }

    @Override
    public void pauseBody() {
        onLoop(() -> paused = true);
    }

    @Override
    public void resumeBody() {
        onLoop(() -> {
            paused = false;
            connection.readMore();
        });
    }

    /** Whether the connection should read more for this request. */
    boolean wantsBody() {
        return claimed && !done && !paused && !responded.get() || draining && !done;
    }

    /** Body content from the connection; this exchange owns {@code content} from here on. */
    void onContent(HttpContent content) {
        if (!claimed && !discarding) {
            early.add(content);
            return;
        }
        deliver(content);
    }

    private void claim() {
        if (claimed) {
            throw new IllegalStateException("the request body can be read only once");
        }
        claimed = true;
        if (HttpUtil.is100ContinueExpected(request) && !responded.get()) {
            // As Go does: the client is told to send the body only once a route wants it.
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                    Unpooled.EMPTY_BUFFER));
        }
        while (!early.isEmpty()) {
            deliver(early.poll());
        }
        connection.readMore();
    }

    private void deliver(HttpContent content) {
        if (draining) {
            drained += content.content().readableBytes();
            content.release();
            if (content instanceof LastHttpContent || drained > MAX_DRAIN_BYTES) {
                done = true;
                ctx.close();
            }
            return;
        }
        if (content.decoderResult().isFailure()) {
            malformedBody(content);
            return;
        }
        try {
            ByteBuf bytes = content.content();
            if (!discarding && bytes.isReadable()) {
                if (aggregate != null) {
                    if (aggregate.size() + bytes.readableBytes() > aggregateLimit) {
                        discarding = true;
                        aggregated.completeExceptionally(LfsException.badRequest("invalid_request",
                                "request body exceeds " + aggregateLimit + " bytes"));
                    } else {
                        bytes.readBytes(aggregate, bytes.readableBytes());
                    }
                } else if (sink != null) {
                    sink.onChunk(bytes);
                }
            }
        } catch (IOException | RuntimeException e) {
            discarding = true;
            if (sink != null) {
                sink.onAbort(e);
            }
        } finally {
            content.release();
        }
        if (content instanceof LastHttpContent) {
            done = true;
            if (!discarding) {
                if (aggregated != null) {
                    aggregated.complete(aggregate.toByteArray());
                } else if (sink != null) {
                    sink.onEnd();
                }
            }
        }
    }

    /**
     * Netty could not decode the body (a bad chunk-size line, a chunk cut short): it ends the body
     * with a failed last content and reads nothing more. What arrived is only a prefix, so the
     * route must not take it for the whole body: it fails with 400, and the connection closes
     * after the answer. Content held before the route claimed the body comes here only once it has.
     */
    private void malformedBody(HttpContent content) {
        Throwable cause = content.decoderResult().cause();
        content.release();
        done = true;
        malformed = true;
        LfsException answer = LfsException.badRequest("malformed_body",
                "the request body is malformed: " + String.valueOf(cause == null ? null : cause.getMessage()));
        if (!discarding) {
            discarding = true;
            if (aggregated != null) {
                aggregated.completeExceptionally(answer);
            } else if (sink != null) {
                sink.onAbort(answer);
            }
        }
    }

    /** The connection closed: a body still arriving never will. */
    void abort(Throwable cause) {
        releaseEarly();
        responded.set(true);
        if (!done && !discarding) {
            discarding = true;
            if (aggregated != null) {
                aggregated.completeExceptionally(cause);
            } else if (sink != null) {
                sink.onAbort(cause);
            }
        }
    }

    private void releaseEarly() {
        while (!early.isEmpty()) {
            early.poll().release();
        }
    }

    // ---- the response ----

    @Override
    public boolean responded() {
        return responded.get();
    }

    @Override
    public void respondJson(int status, Object body) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            fail(new LfsException(500, "encode_failed", "cannot encode the response: " + e.getMessage()));
            return;
        }
        byte[] withNewline = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, withNewline, 0, bytes.length);
        withNewline[bytes.length] = '\n';
        respondBytes(status, "application/json", withNewline);
    }

    @Override
    public void respondBytes(int status, String contentType, byte[] body) {
        if (!responded.compareAndSet(false, true)) {
            return;
        }
        onLoop(() -> {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            HttpUtil.setContentLength(response, body.length);
            writeAndFinish(response);
        });
    }

    @Override
    public void respondNoContent() {
        if (!responded.compareAndSet(false, true)) {
            return;
        }
        onLoop(() -> {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT,
                    Unpooled.EMPTY_BUFFER);
            writeAndFinish(response);
        });
    }

    /** The CORS preflight answer: 204, CORS headers for an allowed origin, no request id (spec §4.2). */
    void respondPreflight() {
        responded.set(true);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT,
                Unpooled.EMPTY_BUFFER);
        connection.cors().add(response.headers(), request.headers().get(HttpHeaderNames.ORIGIN));
        boolean keepAlive = keepAlive(response);
        finish(ctx.writeAndFlush(response), keepAlive);
    }

    @Override
    public void respondFile(Path file, long length, String contentType, Map<String, String> headers,
                            Runnable afterSend) {
        if (!responded.compareAndSet(false, true)) {
            afterSend.run();
            return;
        }
        onLoop(() -> {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            HttpUtil.setContentLength(head, length);
            headers.forEach((k, v) -> head.headers().set(k, v));
            decorate(head);
            boolean keepAlive = keepAlive(head);
            ctx.write(head);
            io.netty.channel.ChannelFuture last;
            if (ctx.pipeline().get(SslHandler.class) == null) {
                // Plain TCP: the kernel copies the file to the socket (sendfile); no heap copy.
                ctx.write(new DefaultFileRegion(file.toFile(), 0, length));
                last = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            } else {
                try {
                    // TLS must encrypt in user space: read in chunks, one at a time, as the socket drains.
                    last = ctx.writeAndFlush(new HttpChunkedInput(new ChunkedFile(
                            new RandomAccessFile(file.toFile(), "r"), 0, length, FILE_CHUNK)));
                } catch (IOException e) {
                    LOGGER.warn("cannot open the verified download {}: {}", file, e.toString());
                    ctx.close();
                    afterSend.run();
                    return;
                }
            }
            last.addListener(f -> afterSend.run());
            finish(last, keepAlive);
        });
    }

    @Override
    public void fail(Throwable failure) {
        LfsException known = LfsException.unwrap(failure);
        if (known == null) {
            LOGGER.warn("LFS request {} {} failed", request.method(), path, failure);
            known = new LfsException(500, "internal_error", String.valueOf(failure));
        }
        Map<String, String> body = new LinkedHashMap<>();
        body.put("code", known.code());
        body.put("message", known.getMessage());
        body.put("request_id", requestId);
        respondJson(known.status(), body);
    }

    /**
     * The answer to a request the decoder could not parse: nothing more is read from this
     * connection, so it closes after the answer ({@link LfsHttpHandler#lingerAndClose}). Runs on the event loop.
     */
    void refuse(LfsException failure) {
        malformed = true;
        done = true;
        fail(failure);
    }

    /** A plain-text answer outside the JSON API (unknown path). */
    void respondText(int status, String text) {
        respondBytes(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    private void writeAndFinish(HttpResponse response) {
        decorate(response);
        boolean keepAlive = keepAlive(response);
        finish(ctx.writeAndFlush(response), keepAlive);
    }

    private void decorate(HttpResponse response) {
        response.headers().set("X-Request-ID", requestId);
        if (lfsPath) {
            connection.cors().add(response.headers(), request.headers().get(HttpHeaderNames.ORIGIN));
        }
    }

    /**
     * Keeps the connection for the next request only when this one's body was read to its end
     * and the client wants keep-alive; otherwise the unread rest of the body would be taken for
     * the next request. Marks the response accordingly, before it is written.
     */
    private boolean keepAlive(HttpResponse response) {
        boolean keepAlive = done && !malformed && HttpUtil.isKeepAlive(request) && !connection.closing();
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return keepAlive;
    }

    private void finish(io.netty.channel.ChannelFuture written, boolean keepAlive) {
        written.addListener(f -> connection.responseWritten(this, keepAlive && f.isSuccess()));
        if (keepAlive) {
            return;
        }
        if (malformed) {
            // The decoder reads nothing more, but the client may still be sending what it could not parse.
            releaseEarly();
            written.addListener(f -> connection.lingerAndClose());
            return;
        }
        boolean bodyMayFollow = !done && !(HttpUtil.is100ContinueExpected(request) && !claimed);
        if (!bodyMayFollow) {
            releaseEarly();
            written.addListener(ChannelFutureListener.CLOSE);
            return;
        }
        // The client may still be sending the body; a close now could reset the connection before
        // it read the answer. Drop the rest (up to a limit), then close.
        written.addListener(f -> {
            if (!f.isSuccess()) {
                ctx.close();
                return;
            }
            draining = true;
            discarding = true;
            while (!early.isEmpty() && !done) {
                deliver(early.poll());
            }
            releaseEarly();
            if (!done) {
                connection.readMore();
            }
        });
    }

    private void onLoop(Runnable task) {
        Async.onLoop(ctx.channel().eventLoop(), task);
    }
}
