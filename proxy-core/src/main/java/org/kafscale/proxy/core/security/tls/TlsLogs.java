package org.kafscale.proxy.core.security.tls;

import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-connection TLS lines of one listener, each kind rate-limited across its connections
 * like the listener's other per-connection lines: a fleet of misconfigured clients logs one line
 * per interval, not one per connection.
 */
public final class TlsLogs {
    private static final Logger LOGGER = LoggerFactory.getLogger(TlsLogs.class);

    final RateLimitedLog plaintextOnTlsPort = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog tlsOnPlaintextPort = RateLimitedLog.every10Seconds(LOGGER);
    final RateLimitedLog handshakeFailures = RateLimitedLog.every10Seconds(LOGGER);
}
