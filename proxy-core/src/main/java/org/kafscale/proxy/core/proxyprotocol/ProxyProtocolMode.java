package org.kafscale.proxy.core.proxyprotocol;

import java.util.Locale;

/**
 * Whether a listener reads a PROXY protocol header (v1 or v2, as a load balancer such as HAProxy,
 * AWS NLB or Envoy writes it) before a connection's own bytes.
 */
public enum ProxyProtocolMode {
    /** No header is read: the connection's bytes are the client's from the first. */
    OFF,
    /** A header is used when the connection starts with one; a connection without one is served as it is. */
    OPTIONAL,
    /** Every connection must start with a valid header; one without is closed. */
    REQUIRED;

    /** The setting's spelling: {@code off}, {@code optional} or {@code required}. */
    public String settingValue() {
        return name().toLowerCase(Locale.ROOT);
    }

}
