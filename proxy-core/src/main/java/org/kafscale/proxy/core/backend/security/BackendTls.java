package org.kafscale.proxy.core.backend.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.time.Duration;
import javax.net.ssl.SSLException;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * The client TLS context for broker connections, built once from {@link BackendTlsSettings}, and
 * the handler each broker channel starts with. The handler is made for the broker's host and port,
 * so the certificate's names are checked against the address the proxy dialled (and sessions are
 * resumed per broker).
 */
public final class BackendTls {
    private final SslContext context;
    private final Duration handshakeTimeout;

    private BackendTls(SslContext context, Duration handshakeTimeout) {
        this.context = context;
        this.handshakeTimeout = handshakeTimeout;
    }

    /**
     * Loads the files {@code settings} names.
     *
     * @throws SSLException when a file does not hold what it should (the message says which)
     */
    public static BackendTls create(BackendTlsSettings settings, Duration handshakeTimeout) throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient()
                // Netty 4.2 verifies hostnames by default; say so either way, so the setting is what decides.
                .endpointIdentificationAlgorithm(settings.verifyHostname() ? "HTTPS" : null);
        if (settings.caFile() != null) {
            builder.trustManager(settings.caFile().toFile());
        }
        if (settings.certFile() != null) {
            builder.keyManager(settings.certFile().toFile(), settings.keyFile().toFile());
        }
        try {
            return new BackendTls(builder.build(), handshakeTimeout);
        } catch (IllegalArgumentException e) {
            // Netty reports an unparseable PEM file this way.
            throw new SSLException(e.getMessage(), e);
        }
    }

    /** A new client-side handler for a connection to {@code broker}; its handshake starts once connected. */
    public SslHandler newHandler(ByteBufAllocator allocator, BrokerEndpoint broker) {
        SslHandler handler = context.newHandler(allocator, broker.host(), broker.port());
        handler.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        return handler;
    }
}
