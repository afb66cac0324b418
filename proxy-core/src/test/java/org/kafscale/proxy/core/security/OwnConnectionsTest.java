package org.kafscale.proxy.core.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

class OwnConnectionsTest {
    private static final BrokerEndpoint LISTENER = new BrokerEndpoint(-1, "127.0.0.1", 9092, null);
    private static final BrokerEndpoint BROKER = new BrokerEndpoint(0, "127.0.0.1", 19092, null);
    private static final InetSocketAddress PROBE_SOCKET = new InetSocketAddress("127.0.0.1", 50_001);

    @Test
    void aConnectionToTheListenerIsOwnWhileItIsOpen() {
        // Given: the listener on every interface
        OwnConnections own = new OwnConnections();
        own.listenerAt(new InetSocketAddress(9092));
        // When the probe connects to it through the loopback address
        own.channelConnected(LISTENER, PROBE_SOCKET, new InetSocketAddress("127.0.0.1", 9092));
        // Then the listener's client connection from that address is the proxy's own, until it closes
        assertTrue(own.isOwn(new InetSocketAddress("127.0.0.1", 50_001)));
        assertFalse(own.isOwn(new InetSocketAddress("127.0.0.1", 50_002)));
        own.channelDisconnected(LISTENER, PROBE_SOCKET, new InetSocketAddress("127.0.0.1", 9092));
        assertFalse(own.isOwn(PROBE_SOCKET));
    }

    @Test
    void connectionsToBrokersAreNeverOwnSinceTheirSourcePortMayBeSharedWithAClientOfTheListener() {
        OwnConnections own = new OwnConnections();
        own.listenerAt(new InetSocketAddress(9092));
        own.channelConnected(BROKER, PROBE_SOCKET, new InetSocketAddress("127.0.0.1", 19092));
        assertFalse(own.isOwn(PROBE_SOCKET));
    }

    @Test
    void nothingIsOwnBeforeTheListenerIsBoundOrWhenItIsBoundElsewhere() {
        OwnConnections own = new OwnConnections();
        own.channelConnected(LISTENER, PROBE_SOCKET, new InetSocketAddress("127.0.0.1", 9092));
        assertFalse(own.isOwn(PROBE_SOCKET), "not bound yet");
        own.listenerAt(new InetSocketAddress("10.1.2.3", 9092));
        own.channelConnected(LISTENER, PROBE_SOCKET, new InetSocketAddress("127.0.0.1", 9092));
        assertFalse(own.isOwn(PROBE_SOCKET), "the listener is bound to another address");
        assertFalse(own.isOwn(null));
    }
}
