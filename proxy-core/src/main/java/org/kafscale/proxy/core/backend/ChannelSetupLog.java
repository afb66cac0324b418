package org.kafscale.proxy.core.backend;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one log line for a broker channel that could not be secured: a failed TLS handshake or a
 * refused SASL authentication. Every client connection opens its own channels, so a wrong password
 * fails many at once and again on each retry; the operator needs the cause once per broker, and
 * again only when it changes or after the broker was reached successfully in between.
 *
 * <p>Thread-safe: channels of every event loop report here. Bounded by brokers, one entry each.
 */
final class ChannelSetupLog {
    private static final Logger LOGGER = LoggerFactory.getLogger(BackendConnector.class);
    /** The failure last logged per broker address, until a channel to it is set up again. */
    private static final Map<String, String> LOGGED = new ConcurrentHashMap<>();

    private ChannelSetupLog() {
    }

    static void failed(BrokerEndpoint broker, String message) {
        String previous = LOGGED.put(broker.address(), message);
        if (!Objects.equals(previous, message)) {
            LOGGER.error("{} (logged once until it changes or the broker is reached)", message);
        }
    }

    static void succeeded(BrokerEndpoint broker) {
        if (LOGGED.remove(broker.address()) != null) {
            LOGGER.info("Channel to {} set up again", broker);
        }
    }
}
