package org.kafscale.proxy.lfs;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.BackendObserver;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.lfs.http.ApiKeyCheck;
import org.kafscale.proxy.lfs.http.LfsHttpServer;
import org.kafscale.proxy.lfs.http.LfsRoute;
import org.kafscale.proxy.lfs.http.LfsRouteFactory;
import org.kafscale.proxy.lfs.http.Cors;
import org.kafscale.proxy.lfs.http.ExposureWarnings;
import org.kafscale.proxy.lfs.http.LfsRouter;
import org.kafscale.proxy.lfs.limits.BlockingPool;
import org.kafscale.proxy.lfs.limits.LfsLimits;
import org.kafscale.proxy.lfs.limits.Limiters;
import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.lfs.publish.EnvelopePublisher;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import org.kafscale.proxy.lfs.s3.BucketSetup;
import org.kafscale.proxy.lfs.s3.ObjectKeys;
import org.kafscale.proxy.lfs.s3.S3Clients;
import org.kafscale.proxy.lfs.s3.S3Health;
import org.kafscale.proxy.lfs.tracker.KafkaTracker;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The LFS module, assembled in one place: S3 clients, the broker client of the LFS path, the
 * envelope publisher, tracker, metrics, the routes and the HTTP listener. Other features add
 * routes through {@link LfsRouteFactory}s passed to {@link #start}.
 *
 * <p>It runs on event loops and a bounded blocking pool of its own, so hashing, S3 calls and slow
 * HTTP clients never take time from the Kafka listener's event loops.
 */
public final class LfsModule implements AutoCloseable {
    /** The refusal counter's label for connections closed for their PROXY protocol header. */
    private static final String PROXY_HEADER_REFUSAL = "proxy_header";
    private static final Logger LOGGER = LoggerFactory.getLogger(LfsModule.class);
    /** An envelope request is tiny; this only bounds what a broker may answer. */
    private static final int MAX_BROKER_FRAME = 16 * 1024 * 1024;
    private static final String CLIENT_ID = "kafscale-lfs-proxy";
    /** The session store's calls are short; a short wait shows S3 trouble soon. */
    private static final int CONTROL_CONNECTIONS = 32;
    private static final Duration CONTROL_ACQUISITION_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration DATA_ACQUISITION_TIMEOUT = Duration.ofSeconds(60);

    private final LfsContext context;
    private final KafkaRequestClient kafka;
    private final ScheduledExecutorService housekeeping;
    private final EventLoopGroup loops;
    private final LfsHttpServer server;

    private LfsModule(LfsContext context, KafkaRequestClient kafka, ScheduledExecutorService housekeeping,
                      EventLoopGroup loops, LfsHttpServer server) {
        this.context = context;
        this.kafka = kafka;
        this.housekeeping = housekeeping;
        this.loops = loops;
        this.server = server;
    }

    /**
     * Builds the module and starts its listener.
     *
     * @param settings the configuration
     * @param topology the cluster topology the Kafka listener uses as well
     * @param gate whether that topology may be routed on now (the TTL gate)
     * @param registry where the {@code kafscale_lfs_proxy_*} series are registered
     * @param extraRoutes routes of other features (multipart uploads)
     */
    public static LfsModule start(LfsSettings settings, Topology topology, RoutingGate gate, MeterRegistry registry,
                                  List<LfsRouteFactory> extraRoutes)
            throws InterruptedException {
        return start(settings, topology, gate, registry, extraRoutes, BackendSecurity.NONE);
    }

    /**
     * Like the above, its connections to brokers (envelope and tracker produces) secured as the
     * Kafka listener's are ({@code KAFSCALE_PROXY_BACKEND_TLS_*}, {@code _SASL_*}).
     */
    public static LfsModule start(LfsSettings settings, Topology topology, RoutingGate gate, MeterRegistry registry,
                                  List<LfsRouteFactory> extraRoutes, BackendSecurity backendSecurity)
            throws InterruptedException {
        return start(settings, topology, gate, registry, extraRoutes, backendSecurity, LfsTracker.NONE);
    }

    /** Like the above, every ops event told to {@code audit} too (the audit trail), whether or not the tracker is on. */
    public static LfsModule start(LfsSettings settings, Topology topology, RoutingGate gate, MeterRegistry registry,
                                  List<LfsRouteFactory> extraRoutes, BackendSecurity backendSecurity, LfsTracker audit)
            throws InterruptedException {
        LfsLimits limits = settings.limits();
        S3AsyncClient s3 = S3Clients.asyncClient(settings.s3(), limits.s3Connections(), DATA_ACQUISITION_TIMEOUT);
        S3AsyncClient controlS3 = S3Clients.asyncClient(settings.s3(), CONTROL_CONNECTIONS,
                CONTROL_ACQUISITION_TIMEOUT);
        S3Presigner presigner = S3Clients.presigner(settings.s3());
        if (settings.s3().ensureBucket()) {
            BucketSetup.ensure(controlS3, settings.s3());
        }
        EventLoopGroup loops = NettyTransport.newEventLoopGroup(limits.ioThreads(), "lfs-io");
        ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("lfs-housekeeping", true));
        ExecutorService blocking = BlockingPool.create(limits.blockingThreads());
        LOGGER.info("LFS limits: {} uploads ({} per client), {} stream downloads, {} temp bytes; S3 pool {}, "
                        + "blocking threads {}", limits.maxUploads(), limits.maxUploadsPerClient(), limits.maxDownloads(),
                limits.downloadTempBytes(), limits.s3Connections(), limits.blockingThreads());
        KafkaRequestClient kafka = new KafkaRequestClient(loops,
                new BackendConnector(MAX_BROKER_FRAME, settings.dialTimeout(), BackendObserver.NONE, backendSecurity),
                CLIENT_ID,
                settings.publish().produceTimeout().plus(settings.dialTimeout()));
        LfsMetrics metrics = new LfsMetrics(registry);
        TrackerEvents events = new TrackerEvents(settings.proxyId());
        LfsTracker ops = settings.tracker().enabled()
                ? KafkaTracker.start(settings.tracker(), topology, kafka, housekeeping)
                : LfsTracker.NONE;
        LfsTracker tracker = audit == LfsTracker.NONE ? ops : LfsTracker.both(ops, audit);
        ObjectJanitor janitor = new ObjectJanitor(s3, settings.s3().bucket(), metrics, tracker, events);
        EnvelopePublisher publisher = new EnvelopePublisher(topology, gate, kafka, loops, janitor, settings.publish());
        S3Health health = new S3Health(settings.s3());
        health.start(housekeeping, settings.s3().healthInterval());
        if (settings.presignEnabled()) {
            PresignWarning.schedule(housekeeping);
        }
        LfsContext context = new LfsContext(settings, s3, controlS3, presigner, new ObjectKeys(settings.namespace(),
                Clock.systemUTC()), publisher, janitor, tracker, events, metrics, health, blocking, topology,
                Limiters.from(limits, registry));

        try {
            List<LfsRoute> routes = new ArrayList<>(BuiltInRoutes.create(context));
            extraRoutes.forEach(f -> routes.addAll(f.routes(context)));
            LfsRouter router = new LfsRouter(routes, new ApiKeyCheck(settings.http().apiKey()),
                    Cors.allowing(settings.http().allowedOrigins()), health::healthy);
            LfsHttpServer server = LfsHttpServer.start(settings.http(), loops, router,
                    () -> metrics.connectionRefused(PROXY_HEADER_REFUSAL));
            ExposureWarnings.of(settings.http()).forEach(LOGGER::warn);
            return new LfsModule(context, kafka, housekeeping, loops, server);
        } catch (RuntimeException | InterruptedException e) {
            release(context, kafka, housekeeping, loops);
            throw e;
        }
    }

    public LfsContext context() {
        return context;
    }

    public InetSocketAddress httpAddress() {
        return server.localAddress();
    }

    @Override
    public void close() {
        server.close();
        release(context, kafka, housekeeping, loops);
        LOGGER.info("LFS module stopped");
    }

    /** Everything but the listener, in dependency order: the tracker still needs the broker client. */
    private static void release(LfsContext context, KafkaRequestClient kafka, ScheduledExecutorService housekeeping,
                                EventLoopGroup loops) {
        context.s3Health().close();
        context.tracker().close();
        housekeeping.shutdownNow();
        context.blocking().shutdownNow();
        kafka.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        context.presigner().close();
        context.s3().close();
        context.controlS3().close();
    }
}
