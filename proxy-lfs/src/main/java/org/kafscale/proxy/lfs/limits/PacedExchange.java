package org.kafscale.proxy.lfs.limits;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.http.BodySink;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsExchange;

/**
 * An upload's exchange whose streamed body must keep a minimum rate: in every window during which
 * the proxy kept reading, the client must send at least {@code minBytesPerSecond × window} bytes,
 * else the body is stopped with 408 {@code upload_too_slow} and the upload lets go of its S3
 * connection and permit. Windows in which the proxy paused reading (S3 slower than the client)
 * do not count against the client.
 *
 * <p>The read idle timeout alone does not do this: a byte every few seconds keeps a connection
 * "active" for as long as the client likes. Everything but the body passes through unchanged;
 * the state below is touched on the connection's event loop only.
 */
public final class PacedExchange implements LfsExchange {
    private final LfsExchange delegate;
    private final long minBytesPerWindow;
    private final Duration window;
    private BodySink sink;
    private long received;
    private long receivedAtCheck;
    private boolean paused;
    private boolean pausedInWindow;
    private boolean finished;
    private ScheduledFuture<?> check;

    private PacedExchange(LfsExchange delegate, long minBytesPerSecond, Duration window) {
        this.delegate = delegate;
        this.minBytesPerWindow = Math.max(1, minBytesPerSecond * window.toMillis() / 1000);
        this.window = window;
    }

    /** {@code exchange} with the rate of {@code limits}; as it is when the rate is off (0). */
    public static LfsExchange of(LfsExchange exchange, LfsLimits limits) {
        return limits.minUploadBytesPerSecond() == 0 ? exchange
                : new PacedExchange(exchange, limits.minUploadBytesPerSecond(), limits.uploadRateWindow());
    }

    @Override
    public void streamBody(BodySink bodySink) {
        onLoop(() -> {
            sink = bodySink;
            check = delegate.eventLoop().scheduleAtFixedRate(this::checkRate, window.toMillis(), window.toMillis(),
                    TimeUnit.MILLISECONDS);
            delegate.streamBody(new Counted());
        });
    }

    @Override
    public void pauseBody() {
        onLoop(() -> {
            paused = true;
            pausedInWindow = true;
        });
        delegate.pauseBody();
    }

    @Override
    public void resumeBody() {
        onLoop(() -> paused = false);
        delegate.resumeBody();
    }

    private void checkRate() {
        if (finished || delegate.responded()) {
            finish();
            return;
        }
        boolean excused = pausedInWindow;
        pausedInWindow = paused;
        long sent = received - receivedAtCheck;
        receivedAtCheck = received;
        if (!excused && sent < minBytesPerWindow) {
            finish();
            sink.onAbort(new LfsException(408, "upload_too_slow", "the body arrived at " + sent + " bytes in "
                    + window.toSeconds() + " s, below the minimum of " + minBytesPerWindow + "; send it faster"));
        }
    }

    private void finish() {
        finished = true;
        if (check != null) {
            check.cancel(false);
        }
    }

    /** Counts what passes; after a stop, nothing more reaches the sink. */
    private final class Counted implements BodySink {
        @Override
        public void onChunk(ByteBuf chunk) {
            if (!finished) {
                received += chunk.readableBytes();
                sink.onChunk(chunk);
            }
        }

        @Override
        public void onEnd() {
            if (!finished) {
                finish();
                sink.onEnd();
            }
        }

        @Override
        public void onAbort(Throwable cause) {
            if (!finished) {
                finish();
                sink.onAbort(cause);
            }
        }
    }

    private void onLoop(Runnable task) {
        Async.onLoop(delegate.eventLoop(), task);
    }

    // ---- everything else as it is ----

    @Override
    public HttpMethod method() {
        return delegate.method();
    }

    @Override
    public String path() {
        return delegate.path();
    }

    @Override
    public HttpHeaders headers() {
        return delegate.headers();
    }

    @Override
    public String requestId() {
        return delegate.requestId();
    }

    @Override
    public String clientIp() {
        return delegate.clientIp();
    }

    @Override
    public Optional<String> principal() {
        return delegate.principal();
    }

    @Override
    public EventLoop eventLoop() {
        return delegate.eventLoop();
    }

    @Override
    public CompletableFuture<byte[]> readBody(int maxBytes) {
        return delegate.readBody(maxBytes);
    }

    @Override
    public void respondJson(int status, Object body) {
        delegate.respondJson(status, body);
    }

    @Override
    public void respondBytes(int status, String contentType, byte[] body) {
        delegate.respondBytes(status, contentType, body);
    }

    @Override
    public void respondNoContent() {
        delegate.respondNoContent();
    }

    @Override
    public void respondFile(Path file, long length, String contentType, Map<String, String> headers,
                            Runnable afterSend) {
        delegate.respondFile(file, length, contentType, headers, afterSend);
    }

    @Override
    public void fail(Throwable failure) {
        delegate.fail(failure);
    }

    @Override
    public boolean responded() {
        return delegate.responded();
    }
}
