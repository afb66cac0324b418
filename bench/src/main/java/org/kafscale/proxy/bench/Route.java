package org.kafscale.proxy.bench;

import java.util.Map;

/**
 * One way for clients to reach the cluster: straight to the brokers, or through a proxy; with the
 * client settings that path needs besides {@code bootstrap.servers} (TLS, for the TLS rows).
 */
record Route(String name, String bootstrap, boolean proxied, Map<String, Object> clientSecurity) {
    Route {
        clientSecurity = Map.copyOf(clientSecurity);
    }

    /** A plaintext route. */
    Route(String name, String bootstrap, boolean proxied) {
        this(name, bootstrap, proxied, Map.of());
    }
}
