package org.kafscale.proxy.core.local;

import java.util.Locale;

/** How the proxy presents the cluster to clients in Metadata and FindCoordinator. */
public enum AdvertiseMode {
    /**
     * Every real broker id, each at the proxy's address. Clients group partitions by owner
     * themselves, so most requests reach the proxy already split. Java clients only: librdkafka
     * merges brokers that share an address and then fetches from one of them.
     */
    BROKERS,
    /**
     * Every real broker id, each at the proxy's host on a port of its own ({@link BrokerPorts}),
     * the bootstrap listener separate. Brokers as in {@link #BROKERS}, for every client: no two
     * ids share an address, so clients that key brokers by address see them all.
     */
    PORTS,
    /** One node, id 0, that leads every partition and coordinates every group (the original's view). */
    SINGLE,
    /**
     * Every real broker id, each under a host name of its own ({@link SniHosts}), all on the
     * listener's one port: the name the client sends in its TLS ClientHello says which broker it
     * addresses. TLS only. One load-balancer port, or an Ingress with TLS passthrough, serves the
     * bootstrap and every broker.
     */
    SNI;

    /** Whether each connection addresses one broker (its own port, or its own name). */
    public boolean addressPerBroker() {
        return this == PORTS || this == SNI;
    }

    /** Parses the configured value ("single", "brokers", "ports" or "sni", any case). */
    public static AdvertiseMode parse(String value) {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
}
