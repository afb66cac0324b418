package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per client connection, written when it closes: who it was (address and principal),
 * which port it came in on and which broker that port or its TLS server name addressed (or
 * {@code -}), how it was secured, how long it stayed and how many requests it sent.
 * Its own logger, {@value #LOGGER_NAME}, so operators can route it to an access log or turn it
 * off without touching the proxy's other lines. Not rate-limited: it is a record of every
 * connection, one line per connection, never one per request.
 */
final class ConnectionAccessLog {
    static final String LOGGER_NAME = "org.kafscale.proxy.access";
    private static final Logger LOGGER = LoggerFactory.getLogger(LOGGER_NAME);

    private ConnectionAccessLog() {
    }

    /** Logs the connection that just closed. Call on its event loop. */
    static void closed(Channel channel, ConnectionContext context, long openedAtNanos, long requests) {
        if (!LOGGER.isInfoEnabled()) {
            return;
        }
        context.atInfo(LOGGER).log(
                "Connection closed: client={} port={} broker={} principal={} security={} requests={} duration_ms={}",
                context.clientAddress(), channel.localAddress(), addressed(context), context.principal(),
                security(channel), requests,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openedAtNanos));
    }

    /** The broker id the connection addressed (ports and sni modes), or {@code -}. */
    private static String addressed(ConnectionContext context) {
        return context.addressedBroker().isPresent() ? String.valueOf(context.addressedBroker().getAsInt()) : "-";
    }

    /** {@code plaintext}, or the TLS version and cipher suite the connection negotiated. */
    private static String security(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return "plaintext";
        }
        if (!ssl.handshakeFuture().isSuccess()) {
            return "tls(no handshake)";
        }
        SSLSession session = ssl.engine().getSession();
        return session.getProtocol() + "/" + session.getCipherSuite();
    }
}
