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
    SINGLE;

    /** Parses the configured value ("single", "brokers" or "ports", any case). */
    public static AdvertiseMode parse(String value) {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
}
