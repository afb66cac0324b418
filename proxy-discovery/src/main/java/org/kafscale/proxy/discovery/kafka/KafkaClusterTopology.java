package org.kafscale.proxy.discovery.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.MetadataResponseData;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.codec.OutboundRequest;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.discovery.CoordinatorLookup;
import org.kafscale.proxy.discovery.SingleFlight;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a plain Kafka cluster through its own Metadata and FindCoordinator answers, starting
 * from the bootstrap addresses in {@code KAFSCALE_PROXY_BACKENDS}.
 *
 * <p>A full Metadata read runs at start and then periodically; a broker saying it no longer leads
 * a partition clears that route (in the current snapshot, O(1)) and triggers an early read, one
 * that starts after the refusal ({@link SingleFlight#fresh()}) so that a read already under way
 * cannot put the old leader back. Coordinators are looked up on first use and cached until a
 * broker says otherwise, for a bounded number of ids ({@link CoordinatorLookup}). Failed reads are
 * logged at WARN once per 10 s.
 */
public final class KafkaClusterTopology implements TopologySource {
    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaClusterTopology.class);

    private final List<BrokerEndpoint> bootstrap;
    private final KafkaRequestClient client;
    private final Duration refreshInterval;
    private final ScheduledExecutorService scheduler;
    private final AtomicReference<TopologySnapshot> current = new AtomicReference<>(TopologySnapshot.EMPTY);
    private final CoordinatorLookup coordinators;
    private final SingleFlight<TopologySnapshot> reads = new SingleFlight<>(this::readCluster);
    private final RateLimitedLog refreshFailures = RateLimitedLog.every10Seconds(LOGGER);
    private final AtomicBoolean earlyRefreshQueued = new AtomicBoolean();
    private volatile long lastGoodReadNanos;
    private volatile boolean everRead;

    /** A topology whose coordinator cache is not measured (tools and tests). */
    public KafkaClusterTopology(List<BrokerEndpoint> bootstrap, KafkaRequestClient client, Duration refreshInterval) {
        this(bootstrap, client, refreshInterval, null);
    }

    /**
     * @param bootstrap addresses to start from (ids unknown, so -1)
     * @param client the proxy's own Kafka client
     * @param refreshInterval how often the full Metadata is read
     * @param metrics where the coordinator cache's size and evictions are published, or null for nowhere
     */
    public KafkaClusterTopology(List<BrokerEndpoint> bootstrap, KafkaRequestClient client, Duration refreshInterval,
                                MeterRegistry metrics) {
        if (bootstrap.isEmpty()) {
            throw new IllegalArgumentException("no bootstrap brokers");
        }
        this.bootstrap = List.copyOf(bootstrap);
        this.client = client;
        this.refreshInterval = refreshInterval;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kafka-topology");
            t.setDaemon(true);
            return t;
        });
        this.coordinators = new CoordinatorLookup(client, current::get, this.bootstrap, metrics);
    }

    /** Reads the cluster once and then keeps reading it; completes with the first snapshot. */
    @Override
    public CompletableFuture<TopologySnapshot> start() {
        scheduler.scheduleWithFixedDelay(this::refreshQuietly, refreshInterval.toMillis(), refreshInterval.toMillis(),
                TimeUnit.MILLISECONDS);
        return reads.current();
    }

    /** A plain Kafka cluster is routable whenever it lists brokers: its answers are never stale data. */
    @Override
    public RoutingGate gate() {
        return RoutingGate.whenBrokersKnown(this);
    }

    @Override
    public TopologySnapshot snapshot() {
        return current.get();
    }

    @Override
    public long millisSinceGoodRead() {
        return everRead ? (System.nanoTime() - lastGoodReadNanos) / 1_000_000 : -1;
    }

    /** A full Metadata read that starts now (after a topic was created, say); callers meanwhile share it. */
    @Override
    public CompletableFuture<TopologySnapshot> refresh() {
        return reads.fresh();
    }

    private CompletableFuture<TopologySnapshot> readCluster() {
        return readMetadata(OutboundRequests.allTopicsMetadata(), candidates(), 0).thenApply(response -> {
            TopologySnapshot snapshot = MetadataSnapshots.fromMetadata(response);
            publish(snapshot);
            lastGoodReadNanos = System.nanoTime();
            everRead = true;
            return snapshot;
        });
    }

    @Override
    public CompletionStage<TopologySnapshot> lookupTopics(Collection<String> names, boolean allowAutoCreate) {
        return readTopics(names, allowAutoCreate).exceptionally(e -> current.get());
    }

    @Override
    public CompletionStage<TopologySnapshot> readTopics(Collection<String> names) {
        return readTopics(names, false);
    }

    private CompletableFuture<TopologySnapshot> readTopics(Collection<String> names, boolean allowAutoCreate) {
        OutboundRequest<MetadataResponseData> request = OutboundRequests.topicsMetadata(new ArrayList<>(names),
                allowAutoCreate);
        return readMetadata(request, candidates(), 0).thenApply(response ->
                current.updateAndGet(s -> MetadataSnapshots.merge(s, response)));
    }

    @Override
    public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        return coordinators.coordinator(kind, key);
    }

    /** O(1) on the caller's event loop; the early read runs on this topology's own thread. */
    @Override
    public void invalidatePartition(String topic, int partition) {
        if (current.get().invalidate(topic, partition) && earlyRefreshQueued.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                earlyRefreshQueued.set(false);
                quietly(reads.fresh());
            });
        }
    }

    @Override
    public void invalidateCoordinator(CoordinatorKind kind, String key) {
        coordinators.invalidate(kind, key);
    }

    private void publish(TopologySnapshot snapshot) {
        TopologySnapshot previous = current.getAndSet(snapshot);
        if (!previous.brokers().equals(snapshot.brokers())) {
            LOGGER.info("Kafka cluster {} brokers: {}", snapshot.clusterId(), snapshot.brokers().values());
        }
    }

    private void refreshQuietly() {
        quietly(reads.current());
    }

    private void quietly(CompletableFuture<TopologySnapshot> read) {
        read.exceptionally(e -> {
            refreshFailures.warn("Reading cluster metadata failed: {}", e.toString());
            LOGGER.debug("Reading cluster metadata failed", e);
            return null;
        });
    }

    /** Known brokers first, then the bootstrap addresses, without repeats. */
    private List<BrokerEndpoint> candidates() {
        Set<BrokerEndpoint> all = new LinkedHashSet<>(current.get().brokers().values());
        all.addAll(bootstrap);
        return new ArrayList<>(all);
    }

    /** Tries each candidate in turn until one answers. */
    private CompletableFuture<MetadataResponseData> readMetadata(OutboundRequest<MetadataResponseData> request,
                                                                 List<BrokerEndpoint> candidates, int index) {
        BrokerEndpoint broker = candidates.get(index);
        CompletableFuture<MetadataResponseData> attempt = client.send(broker, request);
        if (index + 1 >= candidates.size()) {
            return attempt;
        }
        return attempt.handle((response, error) -> error == null
                ? CompletableFuture.completedFuture(response)
                : readMetadata(request, candidates, index + 1)).thenCompose(f -> f);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
