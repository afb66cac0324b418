package org.kafscale.proxy.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.kafscale.proxy.app.authz.AclFiles;
import org.kafscale.proxy.app.audit.AuditRuntime;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.HostPort;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.config.ReloadSettings;
import org.kafscale.proxy.app.health.AdminApi;
import org.kafscale.proxy.app.reload.ConfigInputs;
import org.kafscale.proxy.app.reload.ConfigReload;
import org.kafscale.proxy.app.reload.ReloadOutcome;
import org.kafscale.proxy.app.health.HealthServer;
import org.kafscale.proxy.app.health.MetricsPage;
import org.kafscale.proxy.app.health.HealthStates;
import org.kafscale.proxy.app.health.Readiness;
import org.kafscale.proxy.app.lfs.LfsRuntime;
import org.kafscale.proxy.app.metrics.ProxyMetrics;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.BackendObserver;
import org.kafscale.proxy.core.backend.BrokerApiVersionsProbe;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.sasl.AuthenticationListener;
import org.kafscale.proxy.core.security.sasl.ProbeLogin;
import org.kafscale.proxy.core.security.sasl.SaslAuthenticator;
import org.kafscale.proxy.core.security.sasl.SaslSettings;
import org.kafscale.proxy.core.server.KafkaProxyServer;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running proxy: the topology source, the Kafka listener and the health listener, assembled
 * from a {@link ProxyConfig} in one place so the wiring reads top to bottom.
 */
public final class ProxyRuntime implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProxyRuntime.class);
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(2);
    /** How often the broker ports follow the topology: a new broker's port opens within this. */
    private static final Duration BROKER_PORTS_INTERVAL = Duration.ofSeconds(1);

    /** Everything the proxy started, closed in the reverse order. */
    private final OwnedResources resources;
    private final TopologySource topology;
    private final KafkaProxyServer kafkaServer;
    /** Each virtual cluster's own listener, by its name. */
    private final Map<String, KafkaProxyServer> tenantServers;
    private final Readiness readiness;
    private final Optional<HealthServer> healthServer;
    private final Optional<LfsRuntime> lfs;
    private final Optional<ProbeLogin> probeLogin;
    private final Optional<ConfigReload> reload;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ProxyRuntime(OwnedResources resources, TopologySource topology, KafkaProxyServer kafkaServer,
                         Map<String, KafkaProxyServer> tenantServers, Readiness readiness,
                         Optional<HealthServer> healthServer, Optional<LfsRuntime> lfs, Optional<ProbeLogin> probeLogin,
                         Optional<ConfigReload> reload) {
        this.resources = resources;
        this.topology = topology;
        this.kafkaServer = kafkaServer;
        this.tenantServers = Map.copyOf(tenantServers);
        this.readiness = readiness;
        this.healthServer = healthServer;
        this.lfs = lfs;
        this.probeLogin = probeLogin;
        this.reload = reload;
    }

    public static ProxyRuntime start(ProxyConfig config) throws InterruptedException {
        return start(config, UnaryOperator.identity());
    }

    /**
     * A proxy that can be reconfigured while it runs ({@code POST /admin/reload}, and a change to
     * its files): {@code settings}, merged from {@code inputs}, made {@code config}.
     */
    public static ProxyRuntime start(ConfigInputs inputs, Map<String, String> settings, ProxyConfig config)
            throws InterruptedException {
        return start(config, UnaryOperator.identity(), Optional.of(new Reloadable(inputs, settings,
                ReloadSettings.from(settings))));
    }

    /** What a proxy that reloads is reloaded from. */
    private record Reloadable(ConfigInputs inputs, Map<String, String> settings, ReloadSettings reload) {
    }

    /**
     * A proxy whose per-connection request handlers are wrapped by {@code aroundHandlers} before
     * the listener takes them: for tests that stand in for a part the proxy does not have yet,
     * such as establishing a connection's principal without authentication. A start-up that
     * fails closes what it had started before it throws.
     */
    public static ProxyRuntime start(ProxyConfig config, UnaryOperator<RequestHandlers> aroundHandlers)
            throws InterruptedException {
        return start(config, aroundHandlers, Optional.empty());
    }

    private static ProxyRuntime start(ProxyConfig config, UnaryOperator<RequestHandlers> aroundHandlers,
                                      Optional<Reloadable> reloadable) throws InterruptedException {
        // A bad ACL file (the proxy's or a virtual cluster's) stops start-up before anything is started.
        AclFiles acls = AclFiles.load(config);
        OwnedResources resources = new OwnedResources();
        try {
            return start(config, aroundHandlers, acls, resources, reloadable);
        } catch (RuntimeException | InterruptedException | Error e) {
            resources.close();
            throw e;
        }
    }

    private static ProxyRuntime start(ProxyConfig config, UnaryOperator<RequestHandlers> aroundHandlers,
                                      AclFiles acls, OwnedResources resources, Optional<Reloadable> reloadable)
            throws InterruptedException {
        LOGGER.info("TLS through {} ({})", config.tlsProvider().displayName(), config.tlsProvider().reason());
        EventLoopGroup workers = NettyTransport.newEventLoopGroup(config.ioThreads(), "kafka-io");
        resources.own("the Kafka event loops", () -> workers.shutdownGracefully(0, 2, TimeUnit.SECONDS)
                .syncUninterruptibly());
        // The proxy's own requests (discovery, probes) use their own connector, so the backend
        // channel metric counts only channels that carry clients' requests. Its connections to its
        // own listener (the readiness probe's) are recorded, so authorization can tell the proxy
        // from its clients.
        OwnConnections own = new OwnConnections();
        KafkaRequestClient kafkaClient = new KafkaRequestClient(workers,
                new BackendConnector(config.maxFrameBytes(), config.connectTimeout(), BackendObserver.NONE,
                        config.backendSecurity()), "kafscale-proxy", config.requestTimeout());
        resources.own("the proxy's broker client", kafkaClient::close);

        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TopologySource topology = TopologyAssembly.source(config, kafkaClient, metrics);
        resources.own("the topology source", topology::close);
        TopologyAssembly.awaitFirstRead(topology);

        BrokerApiVersions brokerVersions = new BrokerApiVersions();
        BrokerApiVersionsProbe probe = new BrokerApiVersionsProbe(topology, kafkaClient, brokerVersions);
        ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "proxy-housekeeping");
            t.setDaemon(true);
            return t;
        });
        resources.own("the housekeeping thread", housekeeping::shutdownNow);
        housekeeping.scheduleWithFixedDelay(probe::probeBrokers, 0, PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);

        AdvertisedListener advertised = new AdvertisedListener(config.advertisedHost(), config.advertisedPort(),
                config.advertiseMode(), config.brokerPorts(), config.sniHosts());
        ProxyMetrics proxyMetrics = new ProxyMetrics(metrics, topology, topology.gate());
        // The audit trail starts before anything it records and closes after it (resources close in reverse).
        Optional<AuditRuntime> audit = config.gateway().audit().map(settings -> resources.own("the audit trail",
                AuditRuntime.start(settings, topology, config.backendSecurity(), config.virtualClusters(), own,
                        proxyMetrics)));
        // LFS and the health listener run on event loops of their own, not the Kafka workers.
        Optional<LfsRuntime> lfs = Optional.empty();
        if (config.lfs().isPresent()) {
            lfs = Optional.of(resources.own("the LFS listener",
                    LfsRuntime.start(config, config.lfs().get(), topology, metrics,
                            audit.map(AuditRuntime::lfs).orElse(LfsTracker.NONE))));
        }
        BackendConnector connector = new BackendConnector(config.maxFrameBytes(), config.connectTimeout(), proxyMetrics,
                config.backendSecurity());
        // With SASL, the readiness probe logs in to the listener with a login minted for this process,
        // accepted only on the connections the proxy opens to itself.
        Optional<ProbeLogin> probeLogin = config.sasl().map(settings -> ProbeLogin.mint(own::isOwn));
        AuthenticationListener authentications = audit.map(AuditRuntime::authentications)
                .orElse(AuthenticationListener.NONE);
        Optional<SaslAuthenticator> sasl = config.sasl().map(settings -> resources.own("SASL on the listener",
                startSasl(settings, proxyMetrics, probeLogin, authentications)));
        Map<String, SaslAuthenticator> tenantSasl = new LinkedHashMap<>();
        config.gateway().credentialsFiles().forEach((name, file) -> tenantSasl.put(name, resources.own(
                "SASL on virtual cluster " + name + "'s listener", startSasl(config.sasl().orElseThrow()
                        .withCredentialsFile(file), proxyMetrics, Optional.empty(), authentications,
                        ProxyConfig.GATEWAY_FILE + " (the credentials file " + file + " of virtual cluster '" + name
                                + "')"))));
        // The paths new connections get: these, until a live reconfiguration makes others.
        LivePaths paths = new LivePaths(new LivePaths.Parts(topology, brokerVersions, proxyMetrics, lfs, sasl,
                tenantSasl, own, audit, aroundHandlers, housekeeping), config, acls);
        RequestHandlers handlers = paths.shared();
        KafkaProxyServer kafkaServer = resources.own("the Kafka listener", bound(ProxyConfig.ADDR,
                () -> KafkaProxyServer.start(config.listenerSettings(), workers, handlers, connector, proxyMetrics)));
        Map<String, KafkaProxyServer> tenantServers = new LinkedHashMap<>();
        paths.servedBy(kafkaServer);
        for (Map.Entry<String, RequestHandlers> path : paths.ownListeners().entrySet()) {
            HostPort bind = config.gateway().listeners().get(path.getKey());
            RequestHandlers tenantHandlers = path.getValue();
            tenantServers.put(path.getKey(), resources.own("virtual cluster " + path.getKey() + "'s listener",
                    bound(ProxyConfig.GATEWAY_FILE + " (the listener " + bind + " of virtual cluster '" + path.getKey()
                            + "')", () -> KafkaProxyServer.start(config.listenerSettings(bind, config.brokerPortsOf(path.getKey())), workers,
                            tenantHandlers, connector, proxyMetrics))));
            paths.servedBy(tenantServers.get(path.getKey()));
            LOGGER.info("Virtual cluster '{}' served on {} (advertised {}:{})", path.getKey(),
                    tenantServers.get(path.getKey()).localAddress(), advertised.host(), bind.port());
        }
        config.sniHosts().virtualClusters().values().forEach(names -> LOGGER.info(
                "Virtual cluster '{}' served on {} by TLS server name ({}:{}, brokers {})", names.name(),
                kafkaServer.localAddress(), names.hosts().bootstrapHost(), advertised.port(),
                names.hosts().brokerHostPattern()));
        if (config.advertiseMode() == AdvertiseMode.PORTS) {
            // Ports of the brokers known now before the first client; then the topology is followed,
            // by the shared listener and by each virtual cluster's own.
            List<KafkaProxyServer> servers = new ArrayList<>(List.of(kafkaServer));
            servers.addAll(tenantServers.values());
            servers.forEach(server -> server.followBrokers(topology.snapshot().brokerIds()));
            housekeeping.scheduleWithFixedDelay(() -> servers.forEach(server -> server.followBrokers(
                    topology.snapshot().brokerIds())), BROKER_PORTS_INTERVAL.toMillis(), BROKER_PORTS_INTERVAL.toMillis(),
                    TimeUnit.MILLISECONDS);
        }

        own.listenerAt(kafkaServer.localAddress());
        Readiness readiness = ProbeAssembly.start(config, workers, kafkaServer, kafkaClient, topology, own,
                probeLogin, housekeeping, resources);
        proxyMetrics.watch(readiness, kafkaServer);
        HealthStates healthStates = HealthAssembly.start(config, readiness, topology, probe, audit, housekeeping);
        proxyMetrics.watch(healthStates);
        // The probes and the broker ports stop before the listener and their clients close, so no
        // probe starts a request through a listener that is closing (shutdownNow twice is harmless).
        resources.own("the housekeeping tasks", housekeeping::shutdownNow);
        Optional<ConfigReload> reload = reloadable.map(r -> new ConfigReload(r.inputs(), r.settings(), config, paths,
                metrics));
        reload.ifPresent(r -> r.follow(housekeeping, reloadable.get().reload().watchInterval()));
        Optional<AdminApi> admin = reload.map(r -> new AdminApi(reloadable.get().reload().adminToken(), r,
                housekeeping));
        Optional<HealthServer> health = Optional.empty();
        if (config.health().isPresent()) {
            health = Optional.of(resources.own("the health listener", bound(ProxyConfig.HEALTH_ADDR,
                    () -> HealthServer.start(config.health().get().toBindAddress(), readiness::status,
                            healthStates::current, MetricsPage.of(metrics), admin))));
        }
        LOGGER.info("Proxy serving on {} (advertised {}:{}, mode {}{}); brokers over {}{}", kafkaServer.localAddress(),
                advertised.host(), advertised.port(), advertised.mode(),
                config.advertiseMode() == AdvertiseMode.PORTS ? ", broker ports " + config.brokerPorts()
                        : config.advertiseMode() == AdvertiseMode.SNI
                        ? ", brokers by TLS server name " + config.sniHosts().brokerHostPattern() : "",
                config.backendSecurity().protocol(),
                config.backendSecurity().sasl().map(s -> " (" + s + ")").orElse(""));
        return new ProxyRuntime(resources, topology, kafkaServer, tenantServers, readiness, health, lfs, probeLogin,
                reload);
    }

    /**
     * {@code listener} started, or a configuration error naming {@code setting} when its address
     * cannot be bound: Netty's bind throws the socket's IOException (address in use, not this
     * host's) undeclared, which would otherwise reach the operator as a bare stack trace.
     */
    private static <T> T bound(String setting, Listener<T> listener) throws InterruptedException {
        try {
            return listener.start();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new ConfigException(setting + ": the address cannot be bound (" + e.getMessage() + ")");
        }
    }

    /** A listener's start, which may throw what Netty's bind throws. */
    @FunctionalInterface
    private interface Listener<T> {
        T start() throws Exception;
    }

    /**
     * SASL on the listener: reads the credentials and fetches the JWKS. A failure stops start-up,
     * naming the settings, rather than leave a listener that lets no one in (or anyone).
     */
    private static SaslAuthenticator startSasl(SaslSettings settings, ProxyMetrics metrics,
                                               Optional<ProbeLogin> probeLogin, AuthenticationListener audit) {
        return startSasl(settings, metrics, probeLogin, audit, "SASL on the Kafka listener (KAFSCALE_PROXY_SASL_*)");
    }

    /** The same for the SASL that {@code what} names (a virtual cluster's own listener's). */
    private static SaslAuthenticator startSasl(SaslSettings settings, ProxyMetrics metrics,
                                               Optional<ProbeLogin> probeLogin, AuthenticationListener audit,
                                               String what) {
        try {
            return SaslAuthenticator.start(settings, metrics, probeLogin, audit);
        } catch (RuntimeException e) {
            throw new ConfigException(what + " could not start: " + e);
        }
    }

    public InetSocketAddress kafkaAddress() {
        return kafkaServer.localAddress();
    }

    /** Where virtual cluster {@code name}'s own listener listens, when it has one. */
    public Optional<InetSocketAddress> virtualClusterAddress(String name) {
        return Optional.ofNullable(tenantServers.get(name)).map(KafkaProxyServer::localAddress);
    }

    /** Advertise mode ports: the broker ports open now, by broker id. */
    public Map<Integer, InetSocketAddress> brokerPortAddresses() {
        return kafkaServer.brokerPortAddresses();
    }

    public Optional<InetSocketAddress> healthAddress() {
        return healthServer.map(HealthServer::localAddress);
    }

    /** Where the LFS HTTP API listens, when it is on. */
    public Optional<InetSocketAddress> lfsAddress() {
        return lfs.map(LfsRuntime::httpAddress);
    }

    /** With SASL on the listener: the user name the readiness probe logs in as (never its secret). */
    public Optional<String> probeUsername() {
        return probeLogin.map(ProbeLogin::username);
    }

    /**
     * Reloads the configuration now, as {@code POST /admin/reload} does; empty for a proxy started
     * from a configuration alone, which cannot be read again. Blocks: never call it on an event loop.
     */
    public Optional<ReloadOutcome> reload(String trigger) {
        return reload.map(r -> r.reload(trigger));
    }

    public TopologySource topology() {
        return topology;
    }

    /** Whether the proxy should take new clients, and why; what {@code /readyz} reports. */
    public Readiness.Status readiness() {
        return readiness.status();
    }

    /**
     * Graceful stop (SIGTERM): {@code /readyz} turns 503, the Kafka listener stops accepting, the
     * requests already read are answered within {@code drainTimeout}, then everything closes.
     * Blocks: never call it on an event loop.
     */
    public void drainAndClose(Duration drainTimeout) {
        LOGGER.info("Draining: not ready, no new connections, up to {} ms for requests in flight",
                drainTimeout.toMillis());
        readiness.startDraining();
        try {
            long deadline = System.nanoTime() + drainTimeout.toNanos();
            kafkaServer.drain(drainTimeout);
            for (KafkaProxyServer tenantServer : tenantServers.values()) {
                tenantServer.drain(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    /** Closes at once (no drain), the last started first; the second and later calls do nothing. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            resources.close();
        }
    }
}
