package org.kafscale.proxy.core.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.kafscale.proxy.core.local.BrokerPorts;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings;

/**
 * How the Kafka listener and its broker channels behave.
 *
 * @param bindAddress where the listener accepts clients
 * @param maxFrameBytes the largest request or answer frame accepted (checked before buffering)
 * @param maxInFlightPerConnection requests a client may have waiting before the proxy stops reading
 * @param requestTimeout how long a broker has to answer (a Fetch adds its own max wait)
 * @param connectTimeout how long a broker connection may take
 * @param ioThreads event loop threads (0: Netty's default, twice the cores)
 * @param limits what the listener's clients may hold (connections, buffered bytes, time)
 * @param brokerPorts advertise mode ports: a listener per broker id in range, at the bind host on
 *     the broker's port, beside the bootstrap listener; {@link BrokerPorts#NONE} otherwise
 * @param tls TLS on the bootstrap port and every per-broker port; empty: plaintext
 * @param sniHosts advertise mode sni: the names a connection's TLS server name is routed by (TLS
 *     required); {@link SniHosts#NONE} otherwise
 * @param proxyProtocol whether connections on every port start with a PROXY protocol header
 */
public record ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                               Duration requestTimeout, Duration connectTimeout, int ioThreads, ListenerLimits limits,
                               BrokerPorts brokerPorts, Optional<ListenerTlsSettings> tls, SniHosts sniHosts,
                               ProxyProtocolMode proxyProtocol) {

    public ListenerSettings {
        if (sniHosts != SniHosts.NONE && tls.isEmpty()) {
            throw new IllegalArgumentException("routing by SNI name needs TLS on the listener");
        }
    }

    /** Settings without SNI routing. */
    public ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                            Duration requestTimeout, Duration connectTimeout, int ioThreads, ListenerLimits limits,
                            BrokerPorts brokerPorts, Optional<ListenerTlsSettings> tls, ProxyProtocolMode proxyProtocol) {
        this(bindAddress, maxFrameBytes, maxInFlightPerConnection, requestTimeout, connectTimeout, ioThreads, limits,
                brokerPorts, tls, SniHosts.NONE, proxyProtocol);
    }

    /** Settings without PROXY protocol headers. */
    public ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                            Duration requestTimeout, Duration connectTimeout, int ioThreads, ListenerLimits limits,
                            BrokerPorts brokerPorts, Optional<ListenerTlsSettings> tls, SniHosts sniHosts) {
        this(bindAddress, maxFrameBytes, maxInFlightPerConnection, requestTimeout, connectTimeout, ioThreads, limits,
                brokerPorts, tls, sniHosts, ProxyProtocolMode.OFF);
    }

    public static final int DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

    /** Settings with the default {@link ListenerLimits}. */
    public ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                            Duration requestTimeout, Duration connectTimeout, int ioThreads) {
        this(bindAddress, maxFrameBytes, maxInFlightPerConnection, requestTimeout, connectTimeout, ioThreads,
                ListenerLimits.DEFAULTS);
    }

    /** Settings without per-broker ports. */
    public ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                            Duration requestTimeout, Duration connectTimeout, int ioThreads, ListenerLimits limits) {
        this(bindAddress, maxFrameBytes, maxInFlightPerConnection, requestTimeout, connectTimeout, ioThreads, limits,
                BrokerPorts.NONE);
    }

    /** Plaintext settings. */
    public ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                            Duration requestTimeout, Duration connectTimeout, int ioThreads, ListenerLimits limits,
                            BrokerPorts brokerPorts) {
        this(bindAddress, maxFrameBytes, maxInFlightPerConnection, requestTimeout, connectTimeout, ioThreads, limits,
                brokerPorts, Optional.empty());
    }

    /** Settings without SNI routing or PROXY protocol headers. */
    public ListenerSettings(InetSocketAddress bindAddress, int maxFrameBytes, int maxInFlightPerConnection,
                            Duration requestTimeout, Duration connectTimeout, int ioThreads, ListenerLimits limits,
                            BrokerPorts brokerPorts, Optional<ListenerTlsSettings> tls) {
        this(bindAddress, maxFrameBytes, maxInFlightPerConnection, requestTimeout, connectTimeout, ioThreads, limits,
                brokerPorts, tls, SniHosts.NONE, ProxyProtocolMode.OFF);
    }

    /** Where broker {@code brokerId}'s own listener binds: the bootstrap's host, the broker's port. */
    public InetSocketAddress brokerBindAddress(int brokerId) {
        int port = brokerPorts.portOf(brokerId).orElseThrow(() ->
                new IllegalArgumentException("broker id " + brokerId + " has no port in " + brokerPorts));
        return bindAddress.isUnresolved() ? new InetSocketAddress(bindAddress.getHostString(), port)
                : new InetSocketAddress(bindAddress.getAddress(), port);
    }
}
