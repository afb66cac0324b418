package org.kafscale.proxy.core.topology;

/**
 * A real broker as the proxy reaches it.
 *
 * @param id the broker's node id
 * @param host the host the proxy dials
 * @param port the port the proxy dials
 * @param rack the broker's rack, or null
 */
public record BrokerEndpoint(int id, String host, int port, String rack) {
    public BrokerEndpoint {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("broker " + id + " has no host");
        }
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("broker " + id + " has invalid port " + port);
        }
    }

    public String address() {
        return host + ":" + port;
    }

    @Override
    public String toString() {
        return "broker " + id + " (" + address() + ")";
    }
}
