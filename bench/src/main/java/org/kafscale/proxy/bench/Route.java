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

    /** The plaintext route through our proxy in advertise mode {@code mode}. */
    static Route ourProxy(String mode, String bootstrap) {
        return new Route(ourProxyName(mode), bootstrap, true);
    }

    /** Whether this is the plaintext route through our proxy in advertise mode {@code mode}. */
    boolean isOurProxyIn(String mode) {
        return name.equals(ourProxyName(mode));
    }

    private static String ourProxyName(String mode) {
        return "proxy, " + mode + " mode";
    }
}
