package org.kafscale.proxy.app.config;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A network address as configured: host (empty for every interface) and port.
 *
 * @param host the host name or address, or "" for the wildcard
 * @param port the port
 */
public record HostPort(String host, int port) {

    /** Parses "host:port", ":port" or "[v6]:port"; empty when it is not an address. */
    public static Optional<HostPort> parse(String value) {
        int colon = value.lastIndexOf(':');
        if (colon < 0) {
            return Optional.empty();
        }
        String host = value.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1).trim());
            return port > 0 && port <= 65535 ? Optional.of(new HostPort(host, port)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    public InetSocketAddress toBindAddress() {
        return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
