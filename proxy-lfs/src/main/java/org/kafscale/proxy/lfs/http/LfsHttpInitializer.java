package org.kafscale.proxy.lfs.http;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/** The LFS listener's pipeline, in one place, top to bottom. */
final class LfsHttpInitializer extends ChannelInitializer<SocketChannel> {
    private static final int MAX_INITIAL_LINE = 8192;

    private final HttpSettings settings;
    private final SslContext ssl;
    private final LfsRouter router;

    LfsHttpInitializer(HttpSettings settings, SslContext ssl, LfsRouter router) {
        this.settings = settings;
        this.ssl = ssl;
        this.router = router;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (ssl != null) {
            ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc()));
        }
        addHttpHandlers(ch.pipeline());
    }

    /** Everything after TLS: also what the HTTP fuzz target feeds bytes to. */
    void addHttpHandlers(ChannelPipeline pipeline) {
        pipeline
                // observeOutput: a large download that keeps draining to a slow client is not idle.
                .addLast("idle", new IdleStateHandler(true, settings.readIdleTimeout().toMillis(),
                        settings.writeIdleTimeout().toMillis(), 0, TimeUnit.MILLISECONDS))
                .addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, settings.maxHeaderBytes(), 64 * 1024))
                .addLast("chunked", new ChunkedWriteHandler())
                .addLast("lfs", new LfsHttpHandler(router, settings.headerTimeout(), settings.idleTimeout()));
    }
}
