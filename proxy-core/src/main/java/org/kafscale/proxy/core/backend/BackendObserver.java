package org.kafscale.proxy.core.backend;

import java.net.SocketAddress;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/** Told when broker channels open and close, for metrics. Called on event loops: must be cheap. */
public interface BackendObserver {
    BackendObserver NONE = new BackendObserver() {
    };

    default void channelOpened(BrokerEndpoint broker) {
    }

    default void channelClosed(BrokerEndpoint broker) {
    }

    /** The channel to {@code broker} connected from {@code local} to {@code remote}. */
    default void channelConnected(BrokerEndpoint broker, SocketAddress local, SocketAddress remote) {
    }

    /** That channel closed. */
    default void channelDisconnected(BrokerEndpoint broker, SocketAddress local, SocketAddress remote) {
    }
}
