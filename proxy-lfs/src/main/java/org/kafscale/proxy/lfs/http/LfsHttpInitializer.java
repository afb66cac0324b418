package org.kafscale.proxy.lfs.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.proxyprotocol.ProxyHeaderDetector;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolGate;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LFS listener's pipeline, in one place, top to bottom: with PROXY protocol on, the header's
 * detector and the gate that decides who the client is (before TLS, which the header precedes on
 * the wire); then TLS, when on; then HTTP.
 */
final class LfsHttpInitializer extends ChannelInitializer<SocketChannel> {
    /** The setting named in the lines of connections refused for their PROXY protocol header. */
    static final String PROXY_PROTOCOL_SETTING = "KAFSCALE_LFS_PROXY_HTTP_ACCEPT_PROXY_PROTOCOL";
    private static final int MAX_INITIAL_LINE = 8192;
    private static final Logger LOGGER = LoggerFactory.getLogger(LfsHttpServer.class);

    private final HttpSettings settings;
    private final SslContext ssl;
    private final LfsRouter router;
    private final RateLimitedLog proxyHeaderRefusals = RateLimitedLog.every10Seconds(LOGGER);
    private final ProxyProtocolGate.Admission proxyAdmission;

    /** @param proxyHeaderRefused counts a connection closed for its PROXY protocol header */
    LfsHttpInitializer(HttpSettings settings, SslContext ssl, LfsRouter router, Runnable proxyHeaderRefused) {
        this.settings = settings;
        this.ssl = ssl;
        this.router = router;
        // The LFS listener has no per-address limit: every client a header names is served.
        this.proxyAdmission = new ProxyProtocolGate.Admission() {
            @Override
            public boolean admit(Channel channel, SocketAddress client) {
                return true;
            }

            @Override
            public void refused() {
                proxyHeaderRefused.run();
            }
        };
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (settings.proxyProtocol() != ProxyProtocolMode.OFF) {
            ch.pipeline()
                    .addLast("proxyHeader", new ProxyHeaderDetector())
                    .addLast("proxyGate", new ProxyProtocolGate(settings.proxyProtocol(), PROXY_PROTOCOL_SETTING,
                            settings.headerTimeout().toMillis(), proxyAdmission, event -> false,
                            proxyHeaderRefusals));
        }
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
                .addLast("lfs", new LfsHttpHandler(router, settings.headerTimeout(), settings.idleTimeout(),
                        settings.trustedProxies()));
    }
}
