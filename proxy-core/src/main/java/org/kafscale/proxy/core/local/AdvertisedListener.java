package org.kafscale.proxy.core.local;

/**
 * The address clients are told to use for every broker, and how brokers are presented.
 *
 * @param host the advertised host (KAFSCALE_PROXY_ADVERTISED_HOST)
 * @param port the advertised port (KAFSCALE_PROXY_ADVERTISED_PORT)
 * @param mode brokers or single
 */
public record AdvertisedListener(String host, int port, AdvertiseMode mode) {
    /** The node id of the one broker that single mode advertises. */
    public static final int SINGLE_NODE_ID = 0;
}
