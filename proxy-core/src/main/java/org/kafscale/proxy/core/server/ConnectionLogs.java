package org.kafscale.proxy.core.server;

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
}
