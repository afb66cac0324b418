package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.discovery.CoordinatorLookup;
import org.kafscale.proxy.discovery.SingleFlight;
import org.kafscale.proxy.discovery.TopologySource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KafScale's topology from etcd: brokers and topics from {@code /kafscale/metadata/snapshot},
 * partition owners from {@code /kafscale/partition-leases/}, group coordinators from
 * {@code /kafscale/group-leases/} (the snapshot's {@code Leader} is ignored, as in the original).
 * A group without a lease, and every transactional id (KafScale leases none), gets its coordinator
 * from a broker's FindCoordinator ({@link CoordinatorLookup}).
 *
 * <p>Freshness: a full read at start, prefix watches that trigger a full read on any change, a
 * watch that breaks is re-opened with backoff, and a periodic full read as a backstop. A read
 * after news (a watch event, a broker refusing a route or a coordinator role) is one that starts
 * after the news ({@link SingleFlight#fresh()}): a read already running may have read etcd before
 * the change and would put the stale owner back.
 *
 * <p>It is also the {@link RoutingGate}, by its {@link TtlGate}: past the TTL without a good
 * read, nothing is routed on cached data. Static backends exempt the proxy from the TTL.
 *
 * <p>Failures are logged at WARN, one line per kind per 10 s (a dead etcd fails every read and
 * every watch), with stack traces at DEBUG only.
 *
 * <p>Bad data never replaces good: a snapshot that does not parse, a lease key that does not parse
 * or a lease naming an unknown broker keeps the last good state, is logged once and counted.
 */
public final class EtcdTopology implements TopologySource, RoutingGate {
    private static final Logger LOGGER = LoggerFactory.getLogger(EtcdTopology.class);
    private static final long FIRST_WATCH_BACKOFF_MILLIS = 1000;
    private static final Duration MAX_WATCH_BACKOFF = Duration.ofSeconds(8);
    private static final Duration RECHECK_QUIET = Duration.ofSeconds(1);
    /**
     * How often, while reads fail, the etcd client is told to try connecting again: routing
     * resumes within about this much of etcd answering, instead of when the client's own
     * backoff ends ({@link ConnectBackoff}).
     */
    private static final Duration RECONNECT_INTERVAL = Duration.ofMillis(500);

    private final Client etcd;
    private final List<BrokerEndpoint> staticBrokers;
    private final Duration resyncInterval;
    private final Duration readTimeout;
    private final ScheduledExecutorService scheduler;
    private final SingleFlight<TopologySnapshot> reads = new SingleFlight<>(this::readEtcd);
    private final AtomicReference<State> state = new AtomicReference<>(State.INITIAL);
    private final TtlGate ttlGate;
    private final Runnable resetConnectBackoff;
    private final RateLimitedLog readFailures = RateLimitedLog.every10Seconds(LOGGER);
    private final RateLimitedLog watchFailures = RateLimitedLog.every10Seconds(LOGGER);
    /** Grown by broken watches (jetcd threads), reset by good reads: atomic, as both happen at once. */
    private final AtomicLong watchBackoffMillis = new AtomicLong(FIRST_WATCH_BACKOFF_MILLIS);
    private final Set<String> reportedProblems = ConcurrentHashMap.newKeySet();
    private final List<Watch.Watcher> watchers = new ArrayList<>();
    private final Counter readErrors;
    private final MeterRegistry metrics;
    private final CoordinatorLookup lookup;
    private volatile boolean closed;

    /**
     * Everything one read produced, replaced as a whole. {@code refusedLeases} is the one mutable
     * part: the groups whose leased broker refused the role, with that broker (O(1) to add on an
     * event loop; bounded by the leases listed). A refusal outlives reads for as long as etcd
     * still names the broker that refused, so a stale lease cannot win again at every read; once
     * the lease moves or goes, the refusal is dropped and etcd's word wins.
     */
    private record State(TopologySnapshot snapshot, KafscaleSnapshot document, Map<String, Integer> groupOwners,
                         Map<String, Integer> refusedLeases) {
        /** No leases, so nothing to refuse: its empty refusals are never added to. */
        static final State INITIAL = new State(TopologySnapshot.EMPTY, KafscaleSnapshot.NONE, Map.of(), Map.of());

        /** The refusals of this state that still hold under {@code owners}, the leases of a new read. */
        Map<String, Integer> refusalsStillNaming(Map<String, Integer> owners) {
            Map<String, Integer> kept = new ConcurrentHashMap<>();
            refusedLeases.forEach((group, refusedBy) -> {
                if (refusedBy.equals(owners.get(group))) {
                    kept.put(group, refusedBy);
                }
            });
            return kept;
        }
    }

    /**
     * A topology without a Kafka client, for tests and tools that never route a coordinator: a
     * group without a lease, and any transactional id, then has no coordinator (-1).
     */
    public EtcdTopology(Client etcd, List<BrokerEndpoint> staticBrokers, Duration ttl, Duration resyncInterval,
                        Duration readTimeout, MeterRegistry metrics) {
        this(etcd, null, staticBrokers, ttl, resyncInterval, readTimeout, metrics);
    }

    /**
     * @param etcd the etcd client (closed with this topology)
     * @param kafka the proxy's own Kafka client, which asks brokers for coordinators that have no lease
     * @param staticBrokers KAFSCALE_PROXY_BACKENDS: when not empty, the TTL does not apply and,
     *                      if the snapshot lists no broker, these are the brokers (ids 0..n-1)
     * @param ttl KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC
     * @param resyncInterval the periodic full read
     * @param readTimeout how long one etcd read may take
     */
    public EtcdTopology(Client etcd, KafkaRequestClient kafka, List<BrokerEndpoint> staticBrokers, Duration ttl,
                        Duration resyncInterval, Duration readTimeout, MeterRegistry metrics) {
        this.etcd = etcd;
        this.lookup = kafka == null ? null : new CoordinatorLookup(kafka, this::snapshot, List.of(), metrics);
        this.staticBrokers = List.copyOf(staticBrokers);
        this.resyncInterval = resyncInterval;
        this.readTimeout = readTimeout;
        this.metrics = metrics;
        this.ttlGate = new TtlGate(ttl, !this.staticBrokers.isEmpty(), () -> snapshot().hasBrokers());
        this.resetConnectBackoff = ConnectBackoff.resetter(etcd);
        this.readErrors = Counter.builder("kafscale_proxy_etcd_read_errors_total")
                .description("Full etcd reads that failed").register(metrics);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etcd-topology");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Reads etcd, opens the watches and schedules the backstop read and, for outages, the
     * reconnect nudge; completes with the first read.
     */
    @Override
    public CompletableFuture<TopologySnapshot> start() {
        for (String prefix : List.of(KafscaleKeys.SNAPSHOT, KafscaleKeys.PARTITION_LEASES, KafscaleKeys.GROUP_LEASES)) {
            watch(prefix);
        }
        scheduler.scheduleWithFixedDelay(this::readQuietly, resyncInterval.toMillis(), resyncInterval.toMillis(),
                TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::reconnectWhileFailing, RECONNECT_INTERVAL.toMillis(),
                RECONNECT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return read();
    }

    @Override
    public TopologySnapshot snapshot() {
        return state.get().snapshot();
    }

    @Override
    public long millisSinceGoodRead() {
        return ttlGate.millisSinceHealthy();
    }

    // ---- the gate ----

    @Override
    public RoutingGate gate() {
        return this;
    }

    @Override
    public boolean routable() {
        return ttlGate.open();
    }

    /**
     * Past the TTL, one fresh read decides; recovery needs no restart. A read that failed within
     * the last {@link #RECHECK_QUIET} answers for it, so a burst of refused requests during an
     * outage does not each wait out a doomed read.
     */
    @Override
    public CompletionStage<Boolean> recheck() {
        if (routable()) {
            return CompletableFuture.completedFuture(true);
        }
        // The first refusal may come before any read has seen the TTL pass.
        ttlGate.report();
        if (ttlGate.failedWithin(RECHECK_QUIET)) {
            return CompletableFuture.completedFuture(false);
        }
        return read().handle((snapshot, error) -> routable());
    }

    // ---- lookups ----

    @Override
    public CompletionStage<TopologySnapshot> lookupTopics(java.util.Collection<String> names, boolean allowAutoCreate) {
        return read().exceptionally(e -> snapshot());
    }

    /** One full read of etcd; fails when etcd cannot be read, whatever the TTL. */
    @Override
    public CompletionStage<TopologySnapshot> readTopics(java.util.Collection<String> names) {
        return read();
    }

    /** A full read that starts now (after a topic was created through the proxy, say). */
    @Override
    public CompletionStage<TopologySnapshot> refresh() {
        return reads.fresh();
    }

    /**
     * A group's lease wins while its owner has not refused the role; otherwise (no lease, a
     * refused lease, any transactional id) a broker is asked.
     */
    @Override
    public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        State current = state.get();
        if (!current.snapshot().hasBrokers()) {
            return CompletableFuture.completedFuture(-1);
        }
        Integer owner = leasedOwner(current, kind, key);
        if (owner != null && !owner.equals(current.refusedLeases().get(key))) {
            return CompletableFuture.completedFuture(owner);
        }
        return lookup == null ? CompletableFuture.completedFuture(-1) : lookup.coordinator(kind, key);
    }

    /** The live broker holding {@code key}'s group lease, or null (transactional ids have no lease in KafScale). */
    private static Integer leasedOwner(State state, CoordinatorKind kind, String key) {
        Integer owner = kind == CoordinatorKind.GROUP ? state.groupOwners().get(key) : null;
        return owner != null && state.snapshot().brokers().containsKey(owner) ? owner : null;
    }

    /** O(1) on the caller's event loop; only the first refusal of a route per snapshot asks etcd again. */
    @Override
    public void invalidatePartition(String topic, int partition) {
        if (snapshot().invalidate(topic, partition)) {
            rereadQuietly();
        }
    }

    /**
     * O(1) on the caller's event loop. A refused lease is set aside until etcd names another
     * broker (its first refusal asks etcd again, which may already know the new owner); a
     * looked-up coordinator is looked up again, that broker asked last.
     */
    @Override
    public void invalidateCoordinator(CoordinatorKind kind, String key) {
        State current = state.get();
        Integer owner = leasedOwner(current, kind, key);
        if (owner != null && current.refusedLeases().put(key, owner) == null) {
            rereadQuietly();
        }
        if (lookup != null) {
            lookup.invalidate(kind, key, owner == null ? -1 : owner);
        }
    }

    // ---- reading ----

    /** A full read of the three key ranges; callers while one runs share it. */
    public CompletableFuture<TopologySnapshot> read() {
        return reads.current();
    }

    private CompletableFuture<TopologySnapshot> readEtcd() {
        CompletableFuture<GetResponse> snapshotKey = get(KafscaleKeys.SNAPSHOT, false);
        CompletableFuture<GetResponse> partitionLeases = get(KafscaleKeys.PARTITION_LEASES, true);
        CompletableFuture<GetResponse> groupLeases = get(KafscaleKeys.GROUP_LEASES, true);
        return CompletableFuture.allOf(snapshotKey, partitionLeases, groupLeases)
                .orTimeout(readTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .thenApply(done -> apply(snapshotKey.join(), partitionLeases.join(), groupLeases.join()))
                .whenComplete((snapshot, error) -> {
                    if (closed) {
                        // Failed by close (the client is gone) or timed out after it: nothing about
                        // etcd. Said, it was a "routing stops" line at every shutdown with a read out.
                        return;
                    }
                    if (error != null) {
                        readErrors.increment();
                        String why = describe(error);
                        ttlGate.failedRead(why);
                        readFailures.warn("etcd read failed: {}", why);
                        LOGGER.debug("etcd read failed", error);
                    }
                    ttlGate.report();
                });
    }

    private CompletableFuture<GetResponse> get(String key, boolean prefix) {
        return etcd.getKVClient().get(bytes(key), GetOption.builder().isPrefix(prefix).build());
    }

    private TopologySnapshot apply(GetResponse snapshotKey, GetResponse partitionLeases, GetResponse groupLeases) {
        State previous = state.get();
        KafscaleSnapshot document = previous.document();
        boolean documentGood = true;
        if (!snapshotKey.getKvs().isEmpty()) {
            KeyValue kv = snapshotKey.getKvs().get(0);
            try {
                document = KafscaleSnapshot.parse(kv.getValue().getBytes());
            } catch (IOException | RuntimeException e) {
                documentGood = false;
                reportBadData("snapshot", KafscaleKeys.SNAPSHOT + "@" + kv.getModRevision(),
                        "does not parse (" + e.getMessage() + "); keeping the last good snapshot");
            }
        }
        List<BrokerEndpoint> brokers = document.brokers().isEmpty() ? numberedStaticBrokers() : document.brokers();
        Set<Integer> brokerIds = new java.util.HashSet<>();
        brokers.forEach(b -> brokerIds.add(b.id()));

        Map<String, Map<Integer, Integer>> owners = partitionOwners(partitionLeases, brokerIds, previous.snapshot());
        TopologySnapshot snapshot = document.topology(brokers, owners);
        Map<String, Integer> groupOwners = groupOwners(groupLeases, brokerIds);
        state.set(new State(snapshot, document, groupOwners, previous.refusalsStillNaming(groupOwners)));
        if (documentGood && !brokers.isEmpty()) {
            ttlGate.healthyRead();
            watchBackoffMillis.set(FIRST_WATCH_BACKOFF_MILLIS);
        }
        if (!previous.snapshot().brokers().equals(snapshot.brokers())) {
            LOGGER.info("etcd lists brokers {}", snapshot.brokers().values());
        }
        return snapshot;
    }

    private Map<String, Map<Integer, Integer>> partitionOwners(GetResponse leases, Set<Integer> brokerIds,
                                                              TopologySnapshot previous) {
        Map<String, Map<Integer, Integer>> owners = new HashMap<>();
        for (KeyValue kv : leases.getKvs()) {
            String key = text(kv.getKey());
            var parsed = KafscaleKeys.partitionLease(key);
            var owner = KafscaleKeys.brokerId(text(kv.getValue()));
            if (parsed.isEmpty() || owner.isEmpty()) {
                reportBadData("lease_key", key + "=" + text(kv.getValue()), "is not a partition lease; ignored");
                continue;
            }
            String topic = parsed.get().topic();
            int partition = parsed.get().partition();
            int id = owner.get();
            if (!brokerIds.contains(id)) {
                reportBadData("lease_owner", key + "=" + id, "names a broker the snapshot does not list; keeping the last owner");
                var kept = previous.owner(topic, partition);
                if (kept.isEmpty()) {
                    continue;
                }
                id = kept.getAsInt();
            }
            owners.computeIfAbsent(topic, t -> new HashMap<>()).put(partition, id);
        }
        return owners;
    }

    private Map<String, Integer> groupOwners(GetResponse leases, Set<Integer> brokerIds) {
        Map<String, Integer> owners = new HashMap<>();
        for (KeyValue kv : leases.getKvs()) {
            String key = text(kv.getKey());
            var group = KafscaleKeys.groupLease(key);
            var owner = KafscaleKeys.brokerId(text(kv.getValue()));
            if (group.isEmpty() || owner.isEmpty()) {
                reportBadData("lease_key", key + "=" + text(kv.getValue()), "is not a group lease; ignored");
            } else if (!brokerIds.contains(owner.get())) {
                reportBadData("lease_owner", key + "=" + owner.get(), "names a broker the snapshot does not list; ignored");
            } else {
                owners.put(group.get(), owner.get());
            }
        }
        return Map.copyOf(owners);
    }

    private List<BrokerEndpoint> numberedStaticBrokers() {
        List<BrokerEndpoint> numbered = new ArrayList<>();
        for (int i = 0; i < staticBrokers.size(); i++) {
            BrokerEndpoint b = staticBrokers.get(i);
            numbered.add(new BrokerEndpoint(i, b.host(), b.port(), null));
        }
        return numbered;
    }

    /** Logs a bad piece of data once (per key and value) and counts every sighting. */
    private void reportBadData(String kind, String where, String problem) {
        Counter.builder("kafscale_proxy_etcd_bad_data_total").tag("kind", kind)
                .description("etcd values that were ignored because they did not parse or named unknown brokers")
                .register(metrics).increment();
        if (reportedProblems.add(kind + " " + where)) {
            LOGGER.warn("etcd {} {} {}", kind.replace('_', ' '), where, problem);
        }
    }

    /**
     * While reads fail, the client tries to connect every {@link #RECONNECT_INTERVAL}: a read
     * waiting for the connection then goes through as soon as etcd is back. Healthy, nothing is done.
     */
    private void reconnectWhileFailing() {
        if (!closed && ttlGate.failingSinceHealthy()) {
            resetConnectBackoff.run();
        }
    }

    /** The backstop: any read will do, a running one included. */
    private void readQuietly() {
        if (!closed) {
            reads.current().exceptionally(e -> null);
        }
    }

    /** After news that etcd changed: a read that starts after the news. */
    private void rereadQuietly() {
        if (!closed) {
            reads.fresh().exceptionally(e -> null);
        }
    }

    /** The failure in one line: the cause, not its CompletionException wrapper; a timeout says how long. */
    private String describe(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof TimeoutException ? "no answer within " + readTimeout.toMillis() + " ms" : cause.toString();
    }

    // ---- watching ----

    private void watch(String prefix) {
        if (closed) {
            return;
        }
        Watch.Listener listener = Watch.listener(response -> rereadQuietly(), error -> rewatch(prefix, error),
                () -> rewatch(prefix, null));
        synchronized (watchers) {
            watchers.add(etcd.getWatchClient().watch(bytes(prefix), WatchOption.builder().isPrefix(true).build(), listener));
        }
    }

    /**
     * A broken watch ({@code error} null when etcd ended it): re-read everything (events may have
     * been missed) and watch again after a backoff that grows to 8 s.
     */
    private void rewatch(String prefix, Throwable error) {
        if (closed) {
            return;
        }
        long delay = watchBackoffMillis.getAndUpdate(d -> Math.min(d * 2, MAX_WATCH_BACKOFF.toMillis()));
        watchFailures.warn("etcd watch on {} broke ({}); re-reading and watching again in {} ms", prefix,
                error == null ? "ended by etcd" : describe(error), delay);
        if (error != null) {
            LOGGER.debug("etcd watch on {} broke", prefix, error);
        }
        scheduler.schedule(() -> {
            rereadQuietly();
            watch(prefix);
        }, delay, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        synchronized (watchers) {
            watchers.forEach(Watch.Watcher::close);
        }
        etcd.close();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
