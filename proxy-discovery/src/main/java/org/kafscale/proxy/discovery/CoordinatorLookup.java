package org.kafscale.proxy.discovery;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the coordinator of a group or transactional id by asking a live broker (FindCoordinator),
 * as a Kafka client does: a coordinator is a broker's decision (the leader of the id's partition
 * of {@code __consumer_offsets} or {@code __transaction_state}), so it is never guessed.
 *
 * <p>Brokers are asked in the snapshot's order (then the bootstrap addresses); one that does not
 * answer gives way to the next. The answer is cached, within {@link CoordinatorCache}'s bound,
 * until a broker refuses the role ({@link #invalidate}); the next lookup for that id then asks
 * that broker last, since its view is the one that just proved wrong. Concurrent lookups of one
 * id share one FindCoordinator. Lock-free apart from the cache's O(1) sections: event loops call it.
 */
public final class CoordinatorLookup {
    private static final Logger LOGGER = LoggerFactory.getLogger(CoordinatorLookup.class);

    private record Key(CoordinatorKind kind, String id) {
    }

    private final KafkaRequestClient client;
    private final Supplier<TopologySnapshot> snapshot;
    private final List<BrokerEndpoint> bootstrap;
    private final CoordinatorCache cache = new CoordinatorCache();
    /** Lookups under way, one per id; an entry lives as long as one FindCoordinator round. */
    private final Map<Key, CompletableFuture<Integer>> inFlight = new ConcurrentHashMap<>();
    private final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);

    /**
     * @param client the proxy's own Kafka client
     * @param snapshot the source's current snapshot: its brokers are asked, and a cached
     *                 coordinator it no longer lists is looked up again
     * @param bootstrap addresses asked after the snapshot's brokers (before the first read, or when all fail)
     * @param metrics where the cache's size and evictions are published, or null for nowhere
     */
    public CoordinatorLookup(KafkaRequestClient client, Supplier<TopologySnapshot> snapshot,
                             List<BrokerEndpoint> bootstrap, MeterRegistry metrics) {
        this.client = client;
        this.snapshot = snapshot;
        this.bootstrap = List.copyOf(bootstrap);
        if (metrics != null) {
            Gauge.builder("kafscale_proxy_coordinator_cache_entries", cache, CoordinatorCache::size)
                    .description("Group and transactional ids whose coordinator is cached (at most "
                            + CoordinatorCache.MAX_ENTRIES + ")").register(metrics);
            FunctionCounter.builder("kafscale_proxy_coordinator_cache_evictions_total", cache,
                            CoordinatorCache::evictions)
                    .description("Cached coordinators dropped, least recently used first, to stay within the bound")
                    .register(metrics);
        }
    }

    /** The broker id coordinating {@code key}, or -1 when no broker could name one. */
    public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        Integer cached = cache.get(kind, key);
        if (cached != null && snapshot.get().brokers().containsKey(cached)) {
            return CompletableFuture.completedFuture(cached);
        }
        Key id = new Key(kind, key);
        CompletableFuture<Integer> mine = new CompletableFuture<>();
        CompletableFuture<Integer> running = inFlight.putIfAbsent(id, mine);
        if (running != null) {
            return running;
        }
        // Completed outside the map's compute so a synchronous answer cannot re-enter it.
        ask(kind, key, brokersToAsk(cache.refusedBy(kind, key)), 0).whenComplete((found, error) -> {
            inFlight.remove(id, mine);
            mine.complete(error == null ? found : -1);
        });
        return mine;
    }

    /** A broker refused to coordinate {@code key}: look it up again on next use, asking that broker last. */
    public void invalidate(CoordinatorKind kind, String key) {
        cache.refused(kind, key, CoordinatorCache.NONE);
    }

    /** As {@link #invalidate(CoordinatorKind, String)}, naming the broker that refused (a leased owner). */
    public void invalidate(CoordinatorKind kind, String key, int refusedBy) {
        cache.refused(kind, key, refusedBy);
    }

    /** The snapshot's brokers, then the bootstrap addresses, without repeats; the one that refused last. */
    private List<BrokerEndpoint> brokersToAsk(int refusedBy) {
        Set<BrokerEndpoint> all = new LinkedHashSet<>(snapshot.get().brokers().values());
        all.addAll(bootstrap);
        List<BrokerEndpoint> order = new ArrayList<>(all.size());
        BrokerEndpoint last = null;
        for (BrokerEndpoint b : all) {
            if (refusedBy != CoordinatorCache.NONE && b.id() == refusedBy) {
                last = b;
            } else {
                order.add(b);
            }
        }
        if (last != null) {
            order.add(last);
        }
        return order;
    }

    private CompletableFuture<Integer> ask(CoordinatorKind kind, String key, List<BrokerEndpoint> brokers, int index) {
        if (index >= brokers.size()) {
            return CompletableFuture.completedFuture(-1);
        }
        BrokerEndpoint broker = brokers.get(index);
        return client.send(broker, OutboundRequests.findCoordinator(kind.keyType(), key)).handle((found, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(answer(kind, key, found.get(0)));
            }
            if (index + 1 >= brokers.size()) {
                failures.warn("FindCoordinator {} {}: no broker answered, last {}: {}", kind, key, broker, error.toString());
                return CompletableFuture.completedFuture(-1);
            }
            LOGGER.debug("FindCoordinator {} {} failed at {}; asking the next broker", kind, key, broker, error);
            return ask(kind, key, brokers, index + 1);
        }).thenCompose(f -> f);
    }

    /**
     * The named coordinator, cached; or -1 for an error (such as COORDINATOR_NOT_AVAILABLE while
     * the coordinator's topic is created), which every broker would give alike, so none is asked next.
     */
    private int answer(CoordinatorKind kind, String key, Coordinator coordinator) {
        if (coordinator.errorCode() != Errors.NONE.code()) {
            LOGGER.debug("FindCoordinator {} {}: {}", kind, key, Errors.forCode(coordinator.errorCode()));
            return -1;
        }
        cache.put(kind, key, coordinator.nodeId());
        return coordinator.nodeId();
    }
}
