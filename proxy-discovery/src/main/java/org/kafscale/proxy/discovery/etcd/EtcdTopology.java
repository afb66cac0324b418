package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.discovery.CoordinatorLookup;
import org.kafscale.proxy.discovery.TopologySource;

/**
 * KafScale's topology from etcd: brokers and topics from {@code /kafscale/metadata/snapshot},
 * partition owners from {@code /kafscale/partition-leases/}, group coordinators from
 * {@code /kafscale/group-leases/} ({@link LeasedCoordinators}; the snapshot's {@code Leader} is
 * ignored, as in the original). Each read takes all three at one etcd revision ({@link EtcdReader}).
 *
 * <p>Freshness: a read at start, prefix watches from that read's revision + 1 that trigger a read
 * on any change ({@link EtcdWatches}), and a periodic read as a backstop; after news, a read that
 * starts after it ({@link EtcdReads}).
 *
 * <p>It is also the {@link RoutingGate}, by its {@link TtlGate}: past the TTL without a good
 * read, nothing is routed on cached data. Static backends exempt the proxy from the TTL.
 */
public final class EtcdTopology implements TopologySource, RoutingGate {
    private final Client etcd;
    private final Duration resyncInterval;
    private final ScheduledExecutorService scheduler;
    private final EtcdReads reads;
    private final LeasedCoordinators coordinators;
    private final EtcdWatches watches;
    private final TtlGate ttlGate;

    /**
     * @param etcd the etcd client (closed with this topology)
     * @param kafka the proxy's own Kafka client, which asks brokers for coordinators that have no
     *              lease; null for none (such a coordinator is then -1)
     * @param staticBrokers KAFSCALE_PROXY_BACKENDS: when not empty, the TTL does not apply and,
     *                      if the snapshot lists no broker, these are the brokers (ids 0..n-1)
     * @param ttl KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC
     * @param resyncInterval the periodic full read
     * @param readTimeout how long one etcd read may take
     */
    public EtcdTopology(Client etcd, KafkaRequestClient kafka, List<BrokerEndpoint> staticBrokers, Duration ttl,
                        Duration resyncInterval, Duration readTimeout, MeterRegistry metrics) {
        this(etcd, kafka, staticBrokers, ttl, resyncInterval, readTimeout, metrics, EtcdWatches.Backoff.DEFAULT);
    }

    /** As above, with the backoff of broken watches (tests break many). */
    EtcdTopology(Client etcd, KafkaRequestClient kafka, List<BrokerEndpoint> staticBrokers, Duration ttl,
                 Duration resyncInterval, Duration readTimeout, MeterRegistry metrics, EtcdWatches.Backoff watchBackoff) {
        this.etcd = etcd;
        this.resyncInterval = resyncInterval;
        this.coordinators = new LeasedCoordinators(this::snapshot,
                kafka == null ? null : new CoordinatorLookup(kafka, this::snapshot, List.of(), metrics));
        this.ttlGate = new TtlGate(ttl, !staticBrokers.isEmpty(), () -> snapshot().hasBrokers());
        EtcdReader reader = new EtcdReader(etcd.getKVClient(), staticBrokers, readTimeout, metrics);
        this.reads = new EtcdReads(reader, coordinators, ttlGate, this::healthyRead);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etcd-topology");
            t.setDaemon(true);
            return t;
        });
        this.watches = new EtcdWatches(etcd.getWatchClient(),
                List.of(KafscaleKeys.SNAPSHOT, KafscaleKeys.PARTITION_LEASES, KafscaleKeys.GROUP_LEASES),
                reads::rereadQuietly, () -> reads.fresh().thenApply(EtcdRead::revision), scheduler, watchBackoff);
    }

    /**
     * Reads etcd, then watches from that read's revision + 1; schedules the backstop read and,
     * for outages, the reconnect nudge ({@link ConnectBackoff}); completes with the first read,
     * once the watches are asked for.
     */
    @Override
    public CompletableFuture<TopologySnapshot> start() {
        scheduler.scheduleWithFixedDelay(reads::readQuietly, resyncInterval.toMillis(), resyncInterval.toMillis(),
                TimeUnit.MILLISECONDS);
        ConnectBackoff.cutShortWhile(() -> !reads.closed() && ttlGate.failingSinceHealthy(), etcd, scheduler);
        CompletableFuture<EtcdRead> first = reads.current();
        return watches.start(first.thenApply(EtcdRead::revision)).thenCompose(watching -> first)
                .thenApply(EtcdRead::snapshot);
    }

    @Override
    public TopologySnapshot snapshot() {
        return reads.last().snapshot();
    }

    @Override
    public long millisSinceGoodRead() {
        return ttlGate.millisSinceHealthy();
    }

    @Override
    public Optional<FailingReads> failingReads() {
        return ttlGate.failingWhileOpen();
    }

    @Override
    public RoutingGate gate() {
        return this;
    }

    @Override
    public boolean routable() {
        return ttlGate.open();
    }

    @Override
    public CompletionStage<Boolean> recheck() {
        return ttlGate.recheck(this::read);
    }

    @Override
    public CompletionStage<TopologySnapshot> lookupTopics(Collection<String> names, boolean allowAutoCreate) {
        return read().exceptionally(e -> snapshot());
    }

    /** One full read of etcd; fails when etcd cannot be read, whatever the TTL. */
    @Override
    public CompletionStage<TopologySnapshot> readTopics(Collection<String> names) {
        return read();
    }

    /** A full read that starts now (after a topic was created through the proxy, say). */
    @Override
    public CompletionStage<TopologySnapshot> refresh() {
        return reads.fresh().thenApply(EtcdRead::snapshot);
    }

    @Override
    public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        return coordinators.coordinator(kind, key);
    }

    /** O(1) on the caller's event loop; only the first refusal of a route per snapshot asks etcd again. */
    @Override
    public void invalidatePartition(String topic, int partition) {
        if (snapshot().invalidate(topic, partition)) {
            reads.rereadQuietly();
        }
    }

    /** O(1) on the caller's event loop; a lease's first refusal asks etcd again. */
    @Override
    public void invalidateCoordinator(CoordinatorKind kind, String key) {
        if (coordinators.invalidate(kind, key)) {
            reads.rereadQuietly();
        }
    }

    /** A full read of the three key ranges; callers while one runs share it. */
    public CompletableFuture<TopologySnapshot> read() {
        return reads.current().thenApply(EtcdRead::snapshot);
    }

    /** A read is healthy: the next broken watch waits the first backoff again. */
    private void healthyRead() {
        watches.healthyRead();
    }

    @Override
    public void close() {
        reads.close();
        scheduler.shutdownNow();
        watches.close();
        etcd.close();
    }
}
