package org.kafscale.proxy.lfs.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.server.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The LFS HTTP/1.1 listener (optionally HTTPS, optionally verifying client certificates). */
public final class LfsHttpServer implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(LfsHttpServer.class);

    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final HttpSettings settings;

    private LfsHttpServer(Channel serverChannel, ChannelGroup connections, HttpSettings settings) {
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.settings = settings;
    }

    public static LfsHttpServer start(HttpSettings settings, EventLoopGroup workers, LfsRouter router)
            throws InterruptedException {
        return start(settings, workers, router, () -> { });
    }

    /** @param proxyHeaderRefused counts each connection closed for its PROXY protocol header */
    public static LfsHttpServer start(HttpSettings settings, EventLoopGroup workers, LfsRouter router,
                                      Runnable proxyHeaderRefused) throws InterruptedException {
        SslContext ssl = settings.tls().map(LfsHttpServer::sslContext).orElse(null);
        ChannelGroup connections = new DefaultChannelGroup("lfs-connections", GlobalEventExecutor.INSTANCE);
        LfsHttpInitializer initializer = new LfsHttpInitializer(settings, ssl, router, proxyHeaderRefused);
        Channel server = new ServerBootstrap()
                .group(workers)
                .channel(NettyTransport.serverChannelClass(workers))
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new io.netty.channel.ChannelInitializer<io.netty.channel.socket.SocketChannel>() {
                    @Override
                    protected void initChannel(io.netty.channel.socket.SocketChannel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast(initializer);
                    }
                })
                .bind(settings.address()).sync().channel();
        LOGGER.info("LFS HTTP API on {}{}{}", server.localAddress(), ssl == null ? "" : " (TLS)",
                settings.proxyProtocol() == ProxyProtocolMode.OFF ? ""
                        : ", PROXY protocol " + settings.proxyProtocol().settingValue());
        return new LfsHttpServer(server, connections, settings);
    }

    private static SslContext sslContext(TlsSettings tls) {
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(tls.certFile().toFile(), tls.keyFile().toFile())
                    .sslProvider(tls.provider().sslProvider()).protocols("TLSv1.3", "TLSv1.2");
            if (tls.clientCaFile().isPresent()) {
                builder.trustManager(tls.clientCaFile().get().toFile())
                        .clientAuth(tls.requireClientCert() ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
            }
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot load the LFS TLS certificate or key: " + e.getMessage(), e);
        }
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Stops accepting, closes idle connections, gives requests in progress the shutdown timeout
     * to finish, then closes the rest.
     */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        for (Channel connection : connections) {
            LfsHttpHandler handler = connection.pipeline().get(LfsHttpHandler.class);
            if (handler == null) {
                connection.close();
            } else {
                connection.eventLoop().execute(handler::shutdown);
            }
        }
        connections.newCloseFuture().awaitUninterruptibly(settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
        connections.close().awaitUninterruptibly();
    }
}
