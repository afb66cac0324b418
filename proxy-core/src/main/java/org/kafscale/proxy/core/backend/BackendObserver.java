package org.kafscale.proxy.core.backend;

import org.kafscale.proxy.core.topology.BrokerEndpoint;

/** Told when broker channels open and close, for metrics. Called on event loops: must be cheap. */
public interface BackendObserver {
    BackendObserver NONE = new BackendObserver() {
    };

    default void channelOpened(BrokerEndpoint broker) {
    }

    default void channelClosed(BrokerEndpoint broker) {
    }
}
