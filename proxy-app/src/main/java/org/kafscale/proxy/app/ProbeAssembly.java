package org.kafscale.proxy.app;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslHandler;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.core.security.tls.ListenerTls;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.health.ReadPathProbe;
import org.kafscale.proxy.app.health.Readiness;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.sasl.ProbeLogin;
import org.kafscale.proxy.core.server.KafkaProxyServer;
import org.kafscale.proxy.discovery.TopologySource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness and the read-path probe behind it. The probe is a client of the proxy's own
 * listener, so it proves the path clients take: it speaks to that listener with the listener's
 * TLS (see ListenerTls#newSelfClientHandler) and, with SASL, the probe's own login, never with the
 * backend security, and on a listener that reads PROXY protocol headers it starts with a v2
 * {@code LOCAL} header (as a load balancer's health check does); its round trip to a broker, when no topic proves the read path, goes through
 * the proxy's own broker client.
 */
final class ProbeAssembly {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProbeAssembly.class);

    private ProbeAssembly() {
    }

    /**
     * Starts the probe on {@code housekeeping} and returns the readiness it feeds. The probe's
     * client is handed to {@code resources}, so it closes with the proxy.
     */
    static Readiness start(ProxyConfig config, EventLoopGroup workers, KafkaProxyServer kafkaServer,
                           KafkaRequestClient brokerClient, TopologySource topology, OwnConnections own,
                           Optional<ProbeLogin> probeLogin, ScheduledExecutorService housekeeping,
                           OwnedResources resources) {
        BackendConnector listenerConnector = new BackendConnector(config.maxFrameBytes(), config.connectTimeout(), own,
                kafkaServer.tls().map(tls -> selfClientTls(tls, config)).orElse(null),
                probeLogin.map(ProbeLogin::clientSettings),
                // On a listener that reads PROXY protocol, the probe says it is a local connection
                // (required: without it the listener would close the probe).
                config.proxyProtocol() != ProxyProtocolMode.OFF);
        probeLogin.ifPresent(login -> LOGGER.info("The readiness probe logs in to the Kafka listener with {} "
                + "(minted for this process, accepted only on its own connections)", login));
        KafkaRequestClient probeClient = new KafkaRequestClient(workers, listenerConnector, "kafscale-proxy-probe",
                config.requestTimeout());
        resources.own("the readiness probe's client", probeClient::close);
        ReadPathProbe readProbe = new ReadPathProbe(probeClient, brokerClient, kafkaServer.localAddress(), topology,
                config.readProbe());
        readProbe.start(housekeeping);
        return new Readiness(topology.gate(), topology, readProbe);
    }

    /** The probe's TLS: in sni mode it names the bootstrap host, as a client must, to be let in. */
    private static Function<ByteBufAllocator, SslHandler> selfClientTls(ListenerTls tls, ProxyConfig config) {
        SniHosts sni = config.sniHosts();
        return sni == SniHosts.NONE ? tls::newSelfClientHandler
                : alloc -> tls.newSelfClientHandler(alloc, sni.bootstrapHost());
    }
}
