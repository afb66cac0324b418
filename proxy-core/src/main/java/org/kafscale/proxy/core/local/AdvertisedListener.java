package org.kafscale.proxy.core.local;

/**
 * The address clients are told to use for each broker, and how brokers are presented.
 *
 * @param host the advertised host (KAFSCALE_PROXY_ADVERTISED_HOST)
 * @param port the advertised port of the bootstrap listener (KAFSCALE_PROXY_ADVERTISED_PORT)
 * @param mode single, brokers or ports
 * @param brokerPorts in ports mode, each broker id's own port; {@link BrokerPorts#NONE} otherwise
 */
public record AdvertisedListener(String host, int port, AdvertiseMode mode, BrokerPorts brokerPorts) {
    /** The node id of the one broker that single mode advertises. */
    public static final int SINGLE_NODE_ID = 0;

    public AdvertisedListener {
        if ((mode == AdvertiseMode.PORTS) != (brokerPorts.count() > 0)) {
            throw new IllegalArgumentException("broker ports " + brokerPorts + " do not fit advertise mode " + mode);
        }
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
}
