package org.kafscale.proxy.core.backend;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.EventLoop;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.net.ssl.SSLException;
import org.kafscale.proxy.core.backend.security.BackendSaslSettings;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.core.backend.security.BackendTls;
import org.kafscale.proxy.core.backend.security.BackendSaslLogin;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.proxyprotocol.ProxyHeaders;
import org.kafscale.proxy.core.server.FrameBuffers;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.security.tls.TlsFailureText;

/**
 * Opens {@link BackendChannel}s to brokers on a given event loop. Every connection the proxy makes
 * to a broker (client traffic, discovery, probes, LFS) comes from here, so the pipeline here is the
 * only backend pipeline: TLS when {@link BackendSecurity} asks for it, flushes gathered while the
 * broker's answers are being read, and sent at once otherwise (a deferred flush would wait for a
 * read that may not come), frame decoder, the size prefixer (the one place that writes sizes), and
 * the answer dispatcher.
 *
 * <p>A channel is handed out only once it is ready for requests: connected, its TLS handshake done
 * and, with SASL, authenticated as the proxy. Each step completes asynchronously on the channel's
 * loop; a failed step closes the channel and fails the returned future with a
 * {@link BackendException} naming the broker and the cause (logged by {@link ChannelSetupLog}).
 * A channel whose SASL session has a lifetime (KIP-368) is retired before the broker would close it.
 */
public final class BackendConnector implements AutoCloseable {
    /** The client id on the proxy's own SaslHandshake and SaslAuthenticate. */
    private static final String CLIENT_ID = "kafscale-proxy";
    /**
     * When a broker channel counts as unable to take more (and its client connection stops
     * reading): 2 MiB written and not yet taken by the socket, writable again under 1 MiB. With
     * Netty's default of 64 KiB, every Produce request above it (a producer's default
     * {@code max.request.size} is 1 MiB) made the channel unwritable and writable again as it was
     * flushed, so the client connection stopped and resumed reading once per request: two
     * {@code epoll_ctl} calls and two pipeline events, about a tenth of the event loops' sampled
     * Java time in a profile of {@code ports}-mode produce. The bytes waiting are frames the
     * client's connection already holds, so this raises no bound, it only lets a broker's socket
     * buffer fill before the client is paused.
     */
    static final WriteBufferWaterMark WRITE_WATER_MARK = new WriteBufferWaterMark(1024 * 1024, 2 * 1024 * 1024);

    private final int maxFrameBytes;
    private final Duration connectTimeout;
    private final BackendObserver observer;
    /** Makes each channel's TLS handler, first in its pipeline; null for plaintext. */
    private final BiFunction<ByteBufAllocator, BrokerEndpoint, SslHandler> tls;
    private final BackendSaslLogin sasl;
    /** Whether each channel starts with a PROXY protocol v2 LOCAL header (the probe, on a listener that reads them). */
    private final boolean localProxyHeader;

    public BackendConnector(int maxFrameBytes, Duration connectTimeout) {
        this(maxFrameBytes, connectTimeout, BackendObserver.NONE);
    }

    public BackendConnector(int maxFrameBytes, Duration connectTimeout, BackendObserver observer) {
        this(maxFrameBytes, connectTimeout, observer, BackendSecurity.NONE);
    }

    /**
     * The readiness probe's connector, to reach the proxy's own listener as a client would: its
     * channels start with a TLS handler of {@code selfTls}'s making (when the listener speaks
     * TLS) and log in with {@code login} (when it requires SASL), never with the backend security.
     *
     * @param selfTls makes the TLS handler of a channel to the listener; null for plaintext
     * @param login the probe's own SASL login to the listener; empty when it requires none
     * @param localProxyHeader whether each channel starts with a PROXY protocol v2 LOCAL header,
     *     for a listener that reads them
     */
    public BackendConnector(int maxFrameBytes, Duration connectTimeout, BackendObserver observer,
                            Function<ByteBufAllocator, SslHandler> selfTls, Optional<BackendSaslSettings> login,
                            boolean localProxyHeader) {
        this.maxFrameBytes = maxFrameBytes;
        this.connectTimeout = connectTimeout;
        this.observer = observer;
        this.tls = selfTls == null ? null : (allocator, broker) -> selfTls.apply(allocator);
        this.sasl = login.map(s -> new BackendSaslLogin(s, CLIENT_ID)).orElse(null);
        this.localProxyHeader = localProxyHeader;
    }

    /**
     * @throws IllegalArgumentException when the TLS files {@code security} names cannot be loaded
     */
    public BackendConnector(int maxFrameBytes, Duration connectTimeout, BackendObserver observer,
                            BackendSecurity security) {
        this.maxFrameBytes = maxFrameBytes;
        this.connectTimeout = connectTimeout;
        this.observer = observer;
        try {
            BackendTls backendTls = security.tls().isPresent()
                    ? BackendTls.start(security.tls().get(), connectTimeout) : null;
            this.tls = backendTls == null ? null : backendTls::newHandler;
        } catch (SSLException e) {
            throw new IllegalArgumentException("cannot load the backend TLS files: " + e.getMessage(), e);
        }
        this.sasl = security.sasl().map(s -> new BackendSaslLogin(s, CLIENT_ID)).orElse(null);
        this.localProxyHeader = false;
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
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_WATER_MARK)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.apply(ch.alloc(), broker));
                        }
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
            if (!f.isSuccess()) {
                fail(promise, backend, BackendException.Cause.CONNECT_FAILED, "cannot connect to " + broker + ": " + f.cause());
                return;
            }
            if (localProxyHeader) {
                // Here, before the pipeline is told the channel is active: ahead of TLS and SASL.
                ProxyHeaders.sendLocalFirst(channel);
            }
            observer.channelOpened(broker);
            // The addresses, for OwnConnections: the proxy's own connections to its listener.
            SocketAddress local = channel.localAddress();
            SocketAddress remote = channel.remoteAddress();
            observer.channelConnected(broker, local, remote);
            channel.closeFuture().addListener(closed -> {
                observer.channelClosed(broker);
                observer.channelDisconnected(broker, local, remote);
            });
            SslHandler ssl = tls == null ? null : channel.pipeline().get(SslHandler.class);
            if (ssl == null) {
                authenticate(promise, backend);
                return;
            }
            // Nothing is sent before the handshake is over: the channel is not handed out until then.
            ssl.handshakeFuture().addListener(h -> {
                if (h.isSuccess()) {
                    authenticate(promise, backend);
                } else {
                    fail(promise, backend, BackendException.Cause.TLS_FAILED,
                            "TLS handshake with " + broker + " failed: " + rootMessage(h.cause()));
                }
            });
        });
        return promise;
    }

    private void authenticate(Promise<BackendChannel> promise, BackendChannel backend) {
        if (sasl == null) {
            ready(promise, backend);
            return;
        }
        Future<Long> authenticated;
        try {
            authenticated = sasl.authenticate(backend, connectTimeout.toMillis());
        } catch (RuntimeException e) {
            fail(promise, backend, BackendException.Cause.AUTHENTICATION_FAILED,
                    "cannot authenticate to " + backend.broker() + ": " + e);
            return;
        }
        authenticated.addListener(a -> {
            if (!a.isSuccess()) {
                fail(promise, backend, BackendException.Cause.AUTHENTICATION_FAILED,
                        "cannot authenticate to " + backend.broker() + ": " + a.cause().getMessage());
                return;
            }
            long lifetimeMillis = (Long) a.getNow();
            if (lifetimeMillis > 0) {
                backend.retireAfter(lifetimeMillis);
            }
            ready(promise, backend);
        });
    }

    private static void ready(Promise<BackendChannel> promise, BackendChannel backend) {
        ChannelSetupLog.succeeded(backend.broker());
        if (!promise.trySuccess(backend)) {
            backend.close("connection no longer wanted");
        }
    }

    private static void fail(Promise<BackendChannel> promise, BackendChannel backend, BackendException.Cause cause,
                             String message) {
        if (cause != BackendException.Cause.CONNECT_FAILED) {
            // A refused connection is reported by whoever retries it; a refused handshake or
            // password is most likely a setting the operator must fix.
            ChannelSetupLog.failed(backend.broker(), message);
        }
        backend.close(message);
        promise.tryFailure(new BackendException(cause, false, message));
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return TlsFailureText.withMeaning(root == failure ? String.valueOf(failure)
                : failure.getClass().getSimpleName() + ": " + root.getMessage());
    }

    /** Stops what the security set-up runs on its own (the OAUTHBEARER token fetcher). */
    @Override
    public void close() {
        if (sasl != null) {
            sasl.close();
        }
    }
}
