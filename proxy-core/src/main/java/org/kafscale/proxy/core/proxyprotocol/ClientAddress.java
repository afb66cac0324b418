package org.kafscale.proxy.core.proxyprotocol;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.SocketAddress;

/**
 * The address a client connection is seen under: the source address of its PROXY protocol header
 * when it had one, else the socket's peer. Connection caps, ACL host rules and log lines use this
 * one; checks of the proxy's own connections use the socket's peer ({@link Channel#remoteAddress}),
 * which a header cannot forge.
 */
public final class ClientAddress {
    private static final AttributeKey<SocketAddress> OF_CHANNEL =
            AttributeKey.valueOf(ClientAddress.class, "proxied");

    private ClientAddress() {
    }

    /** The client's address on {@code channel}: the header's source, or the socket's peer. */
    public static SocketAddress of(Channel channel) {
        SocketAddress proxied = channel.attr(OF_CHANNEL).get();
        return proxied != null ? proxied : channel.remoteAddress();
    }

    /** The header on {@code channel} named {@code client} as its source. */
    static void set(Channel channel, SocketAddress client) {
        channel.attr(OF_CHANNEL).set(client);
    }
}
