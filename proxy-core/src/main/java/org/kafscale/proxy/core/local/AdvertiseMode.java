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
    /** One node, id 0, that leads every partition and coordinates every group (the original's view). */
    SINGLE;

    /** Parses the configured value ("brokers" or "single", any case). */
    public static AdvertiseMode parse(String value) {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
}
