package org.kafscale.proxy.core.server;

import java.io.IOException;
import java.net.SocketAddress;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lines a connection may log once per request (or per connection), each kind rate-limited
 * across every connection of one listener: a failing broker or a fleet of misbehaving clients
 * must not turn into a line per request. One instance per listener, so each proxy started in a
 * JVM logs its own first line of each kind. The lines keep the connection handler's logger name,
 * which operators filter on.
 */
final class ConnectionLogs {
    static final Logger LOGGER = LoggerFactory.getLogger(ClientConnectionHandler.class);

    final RateLimitedLog timeouts = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog closes = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog answeredAndClosed = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog offLoop = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog timedOutConnections = RateLimitedLog.every10Seconds(LOGGER);

    /**
     * An exception reached the end of the connection's pipeline, which then closes. A client going
     * away ("Connection reset by peer", a broken pipe) is normal, not a warning.
     */
    void caught(LogFields fields, SocketAddress client, Throwable cause) {
        if (cause instanceof IOException) {
            fields.addTo(LOGGER.atDebug()).log("Connection from client {} ended: {}", client, cause.toString());
        } else {
            failures.warn(fields, "Closing connection from client {}: {}", client, cause.toString());
            fields.addTo(LOGGER.atDebug()).setCause(cause).log("Connection error detail");
        }
    }

    /** A connection's frame did not arrive whole in time, or it was idle too long: it closes. */
    void timedOut(ConnectionContext context, String reason) {
        timedOutConnections.info(context, "Closing connection from client {}: {}", context.describeClient(), reason);
    }

    /** {@code what} failed on the connection, which then closes. */
    void failed(ConnectionContext context, String what, RuntimeException e) {
        failures.warn(context, "Closing connection from client {}: {} failed: {}", context.describeClient(), what,
                e.toString());
        context.atDebug(LOGGER).setCause(e).log("Connection failure detail");
    }
}
