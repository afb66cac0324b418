package org.kafscale.proxy.core.local;

/**
 * The address clients are told to use for each broker, and how brokers are presented.
 *
 * @param host the advertised host (KAFSCALE_PROXY_ADVERTISED_HOST)
 * @param port the advertised port of the bootstrap listener (KAFSCALE_PROXY_ADVERTISED_PORT)
 * @param mode single, brokers or ports
 * @param brokerPorts in ports mode, each broker id's own port; {@link BrokerPorts#NONE} otherwise
 * @param sniHosts in sni mode, each broker id's own name; {@link SniHosts#NONE} otherwise
 */
public record AdvertisedListener(String host, int port, AdvertiseMode mode, BrokerPorts brokerPorts,
                                 SniHosts sniHosts) {
    /** The node id of the one broker that single mode advertises. */
    public static final int SINGLE_NODE_ID = 0;

    public AdvertisedListener {
        if ((mode == AdvertiseMode.PORTS) != (brokerPorts.count() > 0)) {
            throw new IllegalArgumentException("broker ports " + brokerPorts + " do not fit advertise mode " + mode);
        }
        if ((mode == AdvertiseMode.SNI) != (sniHosts != SniHosts.NONE)) {
            throw new IllegalArgumentException("SNI host names " + sniHosts + " do not fit advertise mode " + mode);
        }
    }

    /** Any mode but sni. */
    public AdvertisedListener(String host, int port, AdvertiseMode mode, BrokerPorts brokerPorts) {
        this(host, port, mode, brokerPorts, SniHosts.NONE);
    }

    /** Sni mode: the bootstrap and every broker under its own name, all on {@code port}. */
    public static AdvertisedListener sni(SniHosts hosts, int port) {
        return new AdvertisedListener(hosts.bootstrapHost(), port, AdvertiseMode.SNI, BrokerPorts.NONE, hosts);
    }

    /** Single or brokers mode: every node at the one address. */
    public AdvertisedListener(String host, int port, AdvertiseMode mode) {
        this(host, port, mode, BrokerPorts.NONE);
    }

    /**
     * The port advertised for node {@code nodeId}: in ports mode the broker's own port when its id
     * is in the range; otherwise (and for an id outside the range) the bootstrap port, which
     * serves every partition by splitting.
     */
    public int portOf(int nodeId) {
        return brokerPorts.portOf(nodeId).orElse(port);
    }

    /** The host advertised for node {@code nodeId}: in sni mode the broker's own name, else the one host. */
    public String hostOf(int nodeId) {
        return mode == AdvertiseMode.SNI ? sniHosts.brokerHost(nodeId) : host;
    }
}
