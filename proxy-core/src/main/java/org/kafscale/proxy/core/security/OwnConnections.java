package org.kafscale.proxy.core.security;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.kafscale.proxy.core.backend.BackendObserver;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * The connections this process opened to its own Kafka listener (the readiness probe's), known by
 * their local socket address: a client connection of the listener whose remote address is one of
 * them is the proxy itself. TCP keeps a (source, destination) pair unique while the socket is open
 * and for its TIME_WAIT after, so no other client can connect from that address meanwhile; only
 * connections to the listener are recorded, since a source port may be shared with connections to
 * other destinations. Security checks (authorization) exempt these connections, which would
 * otherwise need rules for the proxy's own probe.
 */
public final class OwnConnections implements BackendObserver {
    private final Set<SocketAddress> open = ConcurrentHashMap.newKeySet();
    private volatile InetSocketAddress listener;

    /** The listener's bound address, once it is bound; connections to it are recorded from now on. */
    public void listenerAt(InetSocketAddress bound) {
        this.listener = bound;
    }

    /** Whether a client connection coming from {@code clientAddress} is one of this process's own. */
    public boolean isOwn(SocketAddress clientAddress) {
        return clientAddress != null && open.contains(clientAddress);
    }

    @Override
    public void channelConnected(BrokerEndpoint broker, SocketAddress local, SocketAddress remote) {
        if (toListener(remote)) {
            open.add(local);
        }
    }

    @Override
    public void channelDisconnected(BrokerEndpoint broker, SocketAddress local, SocketAddress remote) {
        open.remove(local);
    }

    private boolean toListener(SocketAddress remote) {
        InetSocketAddress bound = listener;
        if (bound == null || !(remote instanceof InetSocketAddress to) || to.getPort() != bound.getPort()) {
            return false;
        }
        // A listener bound to every interface is reached through the loopback address (as the probe does).
        return bound.getAddress() == null || bound.getAddress().isAnyLocalAddress()
                ? to.getAddress() != null && to.getAddress().isLoopbackAddress()
                : bound.getAddress().equals(to.getAddress());
    }
}
