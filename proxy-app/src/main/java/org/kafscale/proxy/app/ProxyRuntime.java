package org.kafscale.proxy.app;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kafscale.proxy.app.config.ConfigException;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.kafscale.proxy.app.authz.AclFileWatcher;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.health.HealthServer;
import org.kafscale.proxy.app.health.MetricsPage;
import org.kafscale.proxy.app.health.ReadPathProbe;
import org.kafscale.proxy.app.health.Readiness;
import org.kafscale.proxy.app.lfs.LfsRuntime;
import org.kafscale.proxy.app.metrics.ProxyMetrics;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.BackendObserver;
import org.kafscale.proxy.core.backend.BrokerApiVersionsProbe;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.ApiVersionsResponder;
import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.local.DescribeClusterResponder;
import org.kafscale.proxy.core.local.DescribeTopicPartitionsResponder;
import org.kafscale.proxy.core.local.FindCoordinatorResponder;
import org.kafscale.proxy.core.local.MetadataResponder;
import org.kafscale.proxy.core.policy.Policy;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.security.sasl.ProbeLogin;
import org.kafscale.proxy.core.security.sasl.SaslAuthenticator;
import org.kafscale.proxy.core.security.sasl.SaslSettings;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.authz.AuthorizationPolicy;
import org.kafscale.proxy.core.server.KafkaProxyServer;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.server.RequestDispatcher;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.RoutingGate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.discovery.etcd.EtcdTopology;
import org.kafscale.proxy.discovery.kafka.KafkaClusterTopology;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.routing.Routing;
import org.kafscale.proxy.routing.apis.Apis;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running proxy: the topology source, the Kafka listener and the health listener, assembled
 * from a {@link ProxyConfig} in one place so the wiring reads top to bottom.
 */
public final class ProxyRuntime implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProxyRuntime.class);
    private static final Duration FIRST_READ_WAIT = Duration.ofSeconds(10);
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(2);
    /** How often the broker ports follow the topology: a new broker's port opens within this. */
    private static final Duration BROKER_PORTS_INTERVAL = Duration.ofSeconds(1);
    private static final Duration ETCD_READ_TIMEOUT = Duration.ofSeconds(5);

    private final EventLoopGroup workers;
    private final KafkaRequestClient kafkaClient;
    /** The readiness probe's client of the proxy's own listener (with its TLS, never the backend security). */
    private final KafkaRequestClient probeClient;
    private final TopologySource topology;
    private final ScheduledExecutorService housekeeping;
    private final KafkaProxyServer kafkaServer;
    private final Readiness readiness;
    private final HealthServer healthServer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LfsRuntime lfs;
    private final Optional<SaslAuthenticator> sasl;
    private final Optional<ProbeLogin> probeLogin;

    private ProxyRuntime(EventLoopGroup workers, KafkaRequestClient kafkaClient, KafkaRequestClient probeClient,
                         TopologySource topology, ScheduledExecutorService housekeeping, KafkaProxyServer kafkaServer,
                         Readiness readiness, HealthServer healthServer, LfsRuntime lfs, Optional<SaslAuthenticator> sasl,
                         Optional<ProbeLogin> probeLogin) {
        this.sasl = sasl;
        this.probeLogin = probeLogin;
        this.workers = workers;
        this.kafkaClient = kafkaClient;
        this.probeClient = probeClient;
        this.topology = topology;
        this.housekeeping = housekeeping;
        this.kafkaServer = kafkaServer;
        this.readiness = readiness;
        this.healthServer = healthServer;
        this.lfs = lfs;
    }

    public static ProxyRuntime start(ProxyConfig config) throws InterruptedException {
        return start(config, UnaryOperator.identity());
    }

    /**
     * A proxy whose per-connection request handlers are wrapped by {@code aroundHandlers} before
     * the listener takes them: for tests that stand in for a part the proxy does not have yet,
     * such as establishing a connection's principal without authentication.
     */
    public static ProxyRuntime start(ProxyConfig config, UnaryOperator<RequestHandlers> aroundHandlers)
            throws InterruptedException {
        // A bad ACL file stops start-up before anything is started.
        Optional<AclFileWatcher> acls = config.acl().map(AclFileWatcher::load);
        EventLoopGroup workers = NettyTransport.newEventLoopGroup(config.ioThreads(), "kafka-io");
        // The proxy's own requests (discovery, probes) use their own connector, so the backend
        // channel metric counts only channels that carry clients' requests. Its connections to its
        // own listener (the readiness probe's, below) are recorded, so authorization can tell the
        // proxy from its clients.
        OwnConnections own = new OwnConnections();
        KafkaRequestClient kafkaClient = new KafkaRequestClient(workers,
                new BackendConnector(config.maxFrameBytes(), config.connectTimeout(), BackendObserver.NONE,
                        config.backendSecurity()), "kafscale-proxy",
                config.requestTimeout());

        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TopologySource topology = topologySource(config, kafkaClient, metrics);
        awaitFirstRead(topology);

        BrokerApiVersions brokerVersions = new BrokerApiVersions();
        BrokerApiVersionsProbe probe = new BrokerApiVersionsProbe(topology, kafkaClient, brokerVersions);
        ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "proxy-housekeeping");
            t.setDaemon(true);
            return t;
        });
        housekeeping.scheduleWithFixedDelay(probe::probeBrokers, 0, PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        acls.ifPresent(watcher -> watcher.follow(housekeeping));

        AdvertisedListener advertised = new AdvertisedListener(config.advertisedHost(), config.advertisedPort(),
                config.advertiseMode(), config.brokerPorts());
        LfsRuntime lfs = null;
        if (config.lfs().isPresent()) {
            // LFS and the health listener run on event loops of their own, not the Kafka workers.
            lfs = LfsRuntime.start(config, config.lfs().get(), topology, metrics);
        }
        RoutingGate gate = topology.gate();
        ProxyMetrics proxyMetrics = new ProxyMetrics(metrics, topology, gate);
        BackendConnector connector = new BackendConnector(config.maxFrameBytes(), config.connectTimeout(), proxyMetrics,
                config.backendSecurity());
        // With SASL, the readiness probe logs in to the listener with a login minted for this process,
        // accepted only on the connections the proxy opens to itself.
        Optional<ProbeLogin> probeLogin = config.sasl().map(settings -> ProbeLogin.mint(own::isOwn));
        Optional<SaslAuthenticator> sasl = config.sasl().map(settings -> startSasl(settings, proxyMetrics, probeLogin));
        // Where each key is served and how it is checked, from its one entry in Apis: one catalog for
        // the dispatcher, ApiVersions and the authorizer.
        ApiCatalog apis = Apis.catalog();
        ApiVersionsResponder apiVersions = new ApiVersionsResponder(apis, brokerVersions,
                sasl.isPresent() ? SaslAuthenticator.advertisedApis() : List.of());
        MetadataResponder metadata = new MetadataResponder(topology, advertised);
        FindCoordinatorResponder findCoordinator = new FindCoordinatorResponder(topology, advertised);
        DescribeClusterResponder describeCluster = new DescribeClusterResponder(topology, advertised);
        DescribeTopicPartitionsResponder describeTopicPartitions = new DescribeTopicPartitionsResponder(topology,
                advertised);
        Routing routing = new Routing(topology, advertised, config.requestTimeout().toMillis(), config.anyBrokerConnect(),
                proxyMetrics, lfs == null ? ProduceRewriter.NONE : lfs.produceRewriter(), config.fetchReadAhead());
        // Each connection gets its own router (for what it keeps per connection) behind the shared answers.
        RequestHandlers dispatchers = connection -> new RequestDispatcher(apis, apiVersions, metadata,
                findCoordinator, describeCluster, describeTopicPartitions, gate, routing.newRouter(connection));
        // The policy chain reads every request before the dispatcher answers or routes it, and every
        // answer before it is written: with ACLs, authorization is its first policy. With SASL, every
        // connection (bootstrap and broker ports) authenticates before the chain sees a request.
        List<Policy> policies = new ArrayList<>();
        acls.ifPresent(watcher -> policies.add(new AuthorizationPolicy(apis, watcher.authorizer(), topology,
                proxyMetrics, own)));
        RequestHandlers authorized = new PolicyChain(policies).around(dispatchers);
        RequestHandlers handlers = aroundHandlers.apply(sasl.map(s -> s.guard(authorized)).orElse(authorized));
        KafkaProxyServer kafkaServer = KafkaProxyServer.start(config.listenerSettings(), workers, handlers, connector,
                proxyMetrics);
        if (config.advertiseMode() == AdvertiseMode.PORTS) {
            // Ports of the brokers known now before the first client; then the topology is followed.
            kafkaServer.followBrokers(topology.snapshot().brokerIds());
            housekeeping.scheduleWithFixedDelay(() -> kafkaServer.followBrokers(topology.snapshot().brokerIds()),
                    BROKER_PORTS_INTERVAL.toMillis(), BROKER_PORTS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }

        own.listenerAt(kafkaServer.localAddress());
        // The probe is a client of the proxy's own listener, so it proves the path clients take.
        // Its client speaks to the proxy's own listener with that listener's TLS (see
        // ListenerTls#newSelfClientHandler) and its SASL (the probe's login), never with the backend
        // security; its round trip to a broker, when no topic proves the read path, goes through kafkaClient.
        BackendConnector listenerConnector = new BackendConnector(config.maxFrameBytes(), config.connectTimeout(), own,
                kafkaServer.tls().<Function<ByteBufAllocator, SslHandler>>map(tls -> tls::newSelfClientHandler)
                        .orElse(null),
                probeLogin.map(ProbeLogin::clientSettings));
        probeLogin.ifPresent(login -> LOGGER.info("The readiness probe logs in to the Kafka listener with {} "
                + "(minted for this process, accepted only on its own connections)", login));
        KafkaRequestClient probeClient = new KafkaRequestClient(workers, listenerConnector, "kafscale-proxy-probe",
                config.requestTimeout());
        ReadPathProbe readProbe = new ReadPathProbe(probeClient, kafkaClient, kafkaServer.localAddress(), topology,
                config.readProbe());
        readProbe.start(housekeeping);
        Readiness readiness = new Readiness(gate, topology, readProbe);
        proxyMetrics.watch(readiness, kafkaServer);
        HealthServer health = null;
        if (config.health().isPresent()) {
            health = HealthServer.start(config.health().get().toBindAddress(), readiness::status,
                    MetricsPage.of(metrics));
        }
        LOGGER.info("Proxy serving on {} (advertised {}:{}, mode {}{}); brokers over {}{}", kafkaServer.localAddress(),
                advertised.host(), advertised.port(), advertised.mode(),
                config.advertiseMode() == AdvertiseMode.PORTS ? ", broker ports " + config.brokerPorts() : "",
                config.backendSecurity().protocol(),
                config.backendSecurity().sasl().map(s -> " (" + s + ")").orElse(""));
        return new ProxyRuntime(workers, kafkaClient, probeClient, topology, housekeeping, kafkaServer, readiness, health,
                lfs, sasl, probeLogin);
    }

    /**
     * KafScale's etcd when it is configured (KAFSCALE_PROXY_BACKENDS then only overrides the broker
     * list), otherwise the plain Kafka cluster that KAFSCALE_PROXY_BACKENDS names.
     */
    private static TopologySource topologySource(ProxyConfig config, KafkaRequestClient kafkaClient,
                                                 MeterRegistry metrics) {
        List<BrokerEndpoint> backends = config.backends().stream()
                .map(a -> new BrokerEndpoint(-1, a.host(), a.port(), null)).toList();
        if (config.etcd().isPresent()) {
            LOGGER.info("Topology from etcd {} (cache TTL {} s)", config.etcd().get().endpoints(),
                    config.backendCacheTtl().toSeconds());
            return new EtcdTopology(config.etcd().get().connect(), kafkaClient, backends, config.backendCacheTtl(),
                    config.etcdResync(), ETCD_READ_TIMEOUT, metrics);
        }
        LOGGER.info("Topology from the Kafka cluster at {}", config.backends());
        return new KafkaClusterTopology(backends, kafkaClient, config.metadataRefresh(), metrics);
    }

    /**
     * SASL on the listener: reads the credentials and fetches the JWKS. A failure stops start-up,
     * naming the settings, rather than leave a listener that lets no one in (or anyone).
     */
    private static SaslAuthenticator startSasl(SaslSettings settings, ProxyMetrics metrics,
                                               Optional<ProbeLogin> probeLogin) {
        try {
            return SaslAuthenticator.start(settings, metrics, probeLogin);
        } catch (RuntimeException e) {
            throw new ConfigException("SASL on the Kafka listener (KAFSCALE_PROXY_SASL_*) could not start: " + e);
        }
    }

    /** Waits a bounded time for the first read so the listener starts with routes; serves not-ready otherwise. */
    private static void awaitFirstRead(TopologySource topology) {
        try {
            topology.start().get(FIRST_READ_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOGGER.warn("First read of the Kafka cluster did not succeed ({}); serving not-ready until it does",
                    e.toString());
        }
    }

    public InetSocketAddress kafkaAddress() {
        return kafkaServer.localAddress();
    }

    /** Advertise mode ports: the broker ports open now, by broker id. */
    public Map<Integer, InetSocketAddress> brokerPortAddresses() {
        return kafkaServer.brokerPortAddresses();
    }

    public Optional<InetSocketAddress> healthAddress() {
        return Optional.ofNullable(healthServer).map(HealthServer::localAddress);
    }

    /** Where the LFS HTTP API listens, when it is on. */
    public Optional<InetSocketAddress> lfsAddress() {
        return Optional.ofNullable(lfs).map(LfsRuntime::httpAddress);
    }

    /** With SASL on the listener: the user name the readiness probe logs in as (never its secret). */
    public Optional<String> probeUsername() {
        return probeLogin.map(ProbeLogin::username);
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
            kafkaServer.drain(drainTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    /** Closes at once (no drain); the second and later calls do nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (lfs != null) {
            lfs.close();
        }
        if (healthServer != null) {
            healthServer.close();
        }
        // The probe first, so it starts no request through a listener that is closing.
        housekeeping.shutdownNow();
        kafkaServer.close();
        sasl.ifPresent(SaslAuthenticator::close);
        topology.close();
        kafkaClient.close();
        probeClient.close();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
