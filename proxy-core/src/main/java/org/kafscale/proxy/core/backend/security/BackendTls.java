package org.kafscale.proxy.core.backend.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import org.kafscale.proxy.core.security.tls.KeyPairCheck;
import org.kafscale.proxy.core.security.tls.ReloadingSslContext;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * The client TLS context for broker connections, built from {@link BackendTlsSettings}, and the
 * handler each broker channel starts with. The handler is made for the broker's host and port,
 * so the certificate's names are checked against the address the proxy dialled (and sessions are
 * resumed per broker).
 *
 * <p>The context is rebuilt when its files change (the brokers' CA, the proxy's client
 * certificate and key: a rotated Kubernetes secret), by the listener's own mechanism
 * ({@link ReloadingSslContext}): channels opened from then on use the new files, open ones carry on.
 */
public final class BackendTls {
    private final ReloadingSslContext<SslContext> context;
    private final Duration handshakeTimeout;

    private BackendTls(ReloadingSslContext<SslContext> context, Duration handshakeTimeout) {
        this.context = context;
        this.handshakeTimeout = handshakeTimeout;
    }

    /**
     * Loads the files {@code settings} names, once: what start-up checks.
     *
     * @throws SSLException when a file does not hold what it should (the message says which)
     */
    public static BackendTls create(BackendTlsSettings settings, Duration handshakeTimeout) throws SSLException {
        List<Path> files = Stream.of(settings.caFile(), settings.certFile(), settings.keyFile())
                .filter(f -> f != null).toList();
        try {
            return new BackendTls(ReloadingSslContext.load("Backend TLS material", files, () -> build(settings)),
                    handshakeTimeout);
        } catch (UnusableFiles e) {
            throw e.getCause();
        }
    }

    /**
     * Loads the files and checks them again every {@link BackendTlsSettings#reloadInterval()}
     * for as long as this context is in use.
     *
     * @throws SSLException when a file does not hold what it should (the message says which)
     */
    public static BackendTls start(BackendTlsSettings settings, Duration handshakeTimeout) throws SSLException {
        BackendTls tls = create(settings, handshakeTimeout);
        tls.context.follow(settings.reloadInterval());
        return tls;
    }

    private static SslContext build(BackendTlsSettings settings) {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(settings.provider().sslProvider())
                // Netty 4.2 verifies hostnames by default; say so either way, so the setting is what decides.
                .endpointIdentificationAlgorithm(settings.verifyHostname() ? "HTTPS" : null);
        try {
            if (settings.caFile() != null) {
                builder.trustManager(settings.caFile().toFile());
            }
            if (settings.certFile() != null) {
                // As on the listener: a rotation that replaces the certificate and the key one file
                // after the other shows a mismatched pair for a moment, which must not be loaded.
                KeyPairCheck.requireMatch(settings.certFile(), settings.keyFile());
                builder.keyManager(settings.certFile().toFile(), settings.keyFile().toFile());
            }
            return builder.build();
        } catch (SSLException e) {
            throw new UnusableFiles(e);
        } catch (Exception e) {
            // Netty reports an unparseable PEM file with an IllegalArgumentException.
            throw new UnusableFiles(new SSLException(e.getMessage(), e));
        }
    }

    /** Checks the files now (tests; the periodic check does the same). */
    public boolean reloadIfChanged() {
        return context.reloadIfChanged();
    }

    /** A new client-side handler for a connection to {@code broker}; its handshake starts once connected. */
    public SslHandler newHandler(ByteBufAllocator allocator, BrokerEndpoint broker) {
        SslHandler handler = context.current().newHandler(allocator, broker.host(), broker.port());
        handler.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        return handler;
    }

    /** Carries the {@link SSLException} of a build out of the reloader's supplier. */
    private static final class UnusableFiles extends RuntimeException {
        UnusableFiles(SSLException cause) {
            super(cause.getMessage(), cause);
        }

        @Override
        public synchronized SSLException getCause() {
            return (SSLException) super.getCause();
        }
    }
}
