package org.kafscale.proxy.core.testing;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * A topology held in memory, as a test sets it up: brokers, the owner of each partition, the
 * coordinator of each key, and where a route goes once a broker has refused it ("after
 * invalidation the owner becomes broker 2"). It records what it is asked (lookups, coordinator
 * queries, invalidations). Everything completes at once.
 *
 * <p>A broker's refusal changes nothing unless the test said where the route goes next: the
 * topology then still names the broker that refused, as a source would before its next read.
 *
 * <p>The proxy reads it on its event loops while the test sets it up and asserts on its own
 * thread, so every method is safe to call from any thread.
 */
public final class StubTopology implements Topology {

    /** A topic lookup: the names asked for and whether the client allowed creating them. */
    public record Lookup(List<String> names, boolean allowAutoCreate) {
    }

    /** A group or transactional id, as the topology was asked about it or told to forget it. */
    public record CoordinatorKey(CoordinatorKind kind, String key) {
    }

    /** A partition whose route a broker refused. */
    public record PartitionKey(String topic, int partition) {
        @Override
        public String toString() {
            return topic + "-" + partition;
        }
    }

    private volatile TopologySnapshot snapshot;
    private volatile TopologySnapshot afterLookup;
    private final Map<String, CompletionStage<Integer>> coordinators = new HashMap<>();
    private final Map<PartitionKey, Queue<Integer>> nextOwners = new HashMap<>();
    private final Map<String, Queue<Integer>> nextCoordinators = new HashMap<>();
    private final Queue<CompletionStage<TopologySnapshot>> refreshAnswers = new ArrayDeque<>();
    private int refreshes;
    private final List<Lookup> lookups = new CopyOnWriteArrayList<>();
    private final List<CoordinatorKey> coordinatorQueries = new CopyOnWriteArrayList<>();
    private final List<PartitionKey> invalidatedPartitions = new CopyOnWriteArrayList<>();
    private final List<CoordinatorKey> invalidatedCoordinators = new CopyOnWriteArrayList<>();

    public StubTopology(TopologySnapshot snapshot) {
        this.snapshot = snapshot;
    }

    /** These brokers and no topics yet. */
    public static StubTopology of(BrokerEndpoint... brokers) {
        return new StubTopology(TopologySnapshot.of("stub-cluster", brokers.length == 0 ? -1 : brokers[0].id(),
                List.of(brokers), List.of()));
    }

    /** Adds a broker (or replaces the one with its id). */
    public synchronized StubTopology withBroker(BrokerEndpoint broker) {
        TopologySnapshot current = snapshot;
        Map<Integer, BrokerEndpoint> brokers = new HashMap<>(current.brokers());
        brokers.put(broker.id(), broker);
        snapshot = TopologySnapshot.of(current.clusterId(), current.controllerId() < 0 ? broker.id() : current.controllerId(),
                brokers.values(), current.topics().values());
        return this;
    }

    /** Topic lookups answer with {@code snapshot} (as if the source found or created topics). */
    public StubTopology answeringLookupsWith(TopologySnapshot snapshot) {
        this.afterLookup = snapshot;
        return this;
    }

    /**
     * Sets the owner of one partition (creating its topic, with a random id, the first time);
     * {@link PartitionLayout#NO_OWNER} for none.
     */
    public synchronized StubTopology withPartition(String topic, int partition, int owner) {
        TopologySnapshot current = snapshot;
        TopicLayout layout = current.topic(topic).orElse(null);
        Map<Integer, PartitionLayout> partitions = layout == null ? new HashMap<>() : new HashMap<>(layout.partitions());
        List<Integer> replicas = owner == PartitionLayout.NO_OWNER ? List.of() : List.of(owner);
        partitions.put(partition, new PartitionLayout(partition, owner, 0, replicas, replicas, List.of()));
        Map<String, TopicLayout> topics = new HashMap<>(current.topics());
        topics.put(topic, TopicLayout.of(topic, layout == null ? Uuid.randomUuid() : layout.id(), false, partitions));
        snapshot = TopologySnapshot.of(current.clusterId(), current.controllerId(), current.brokers().values(),
                topics.values());
        return this;
    }

    /**
     * Where the partition goes when a broker refuses it: each invalidation moves it to the next
     * of {@code owners}; once they are used up, invalidations leave it where it is.
     */
    public synchronized StubTopology afterInvalidation(String topic, int partition, int... owners) {
        nextOwners.computeIfAbsent(new PartitionKey(topic, partition), k -> new ArrayDeque<>())
                .addAll(Arrays.stream(owners).boxed().toList());
        return this;
    }

    public synchronized StubTopology withCoordinator(String key, int brokerId) {
        coordinators.put(key, CompletableFuture.completedFuture(brokerId));
        return this;
    }

    public synchronized StubTopology withFailingCoordinatorLookup(String key) {
        coordinators.put(key, CompletableFuture.failedFuture(new IllegalStateException("source unreachable")));
        return this;
    }

    /**
     * Where a key goes when its coordinator says it is not: each invalidation moves it to the
     * next of {@code brokerIds}; once they are used up, invalidations leave it where it is.
     */
    public synchronized StubTopology afterCoordinatorInvalidation(String key, int... brokerIds) {
        nextCoordinators.computeIfAbsent(key, k -> new ArrayDeque<>()).addAll(Arrays.stream(brokerIds).boxed().toList());
        return this;
    }

    /**
     * What fresh reads ({@link #refresh()}) answer: each the next of {@code answers} (a stage the
     * test may complete later, or never); once they are used up, the current snapshot.
     */
    @SafeVarargs
    public final synchronized StubTopology refreshingWith(CompletionStage<TopologySnapshot>... answers) {
        refreshAnswers.addAll(Arrays.asList(answers));
        return this;
    }

    /** How many fresh reads were asked for. */
    public synchronized int refreshes() {
        return refreshes;
    }

    @Override
    public synchronized CompletionStage<TopologySnapshot> refresh() {
        refreshes++;
        CompletionStage<TopologySnapshot> next = refreshAnswers.poll();
        return next != null ? next : CompletableFuture.completedFuture(snapshot);
    }

    /** The id the topology gave {@code topic}. */
    public Uuid topicId(String topic) {
        return snapshot.topic(topic).orElseThrow(() -> new IllegalArgumentException("no topic " + topic)).id();
    }

    /** The name of the topic with this id (for reading requests and answers that name topics by id). */
    public String topicName(Uuid id) {
        return snapshot.topic(id).orElseThrow(() -> new IllegalArgumentException("no topic with id " + id)).name();
    }

    public List<Lookup> lookups() {
        return List.copyOf(lookups);
    }

    public List<CoordinatorKey> coordinatorQueries() {
        return List.copyOf(coordinatorQueries);
    }

    /** Every partition invalidation so far, in order. */
    public List<PartitionKey> invalidatedPartitions() {
        return List.copyOf(invalidatedPartitions);
    }

    /** Every coordinator invalidation so far, in order. */
    public List<CoordinatorKey> invalidatedCoordinators() {
        return List.copyOf(invalidatedCoordinators);
    }

    @Override
    public TopologySnapshot snapshot() {
        return snapshot;
    }

    @Override
    public CompletionStage<TopologySnapshot> lookupTopics(Collection<String> names, boolean allowAutoCreate) {
        lookups.add(new Lookup(List.copyOf(names), allowAutoCreate));
        TopologySnapshot answer = afterLookup;
        return CompletableFuture.completedFuture(answer != null ? answer : snapshot);
    }

    /** The configured coordinator, or -1 (no live coordinator) for keys not configured. */
    @Override
    public synchronized CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        coordinatorQueries.add(new CoordinatorKey(kind, key));
        return coordinators.getOrDefault(key, CompletableFuture.completedFuture(-1));
    }

    @Override
    public synchronized void invalidatePartition(String topic, int partition) {
        PartitionKey key = new PartitionKey(topic, partition);
        invalidatedPartitions.add(key);
        Integer next = poll(nextOwners.get(key));
        if (next != null) {
            withPartition(topic, partition, next);
        }
    }

    @Override
    public synchronized void invalidateCoordinator(CoordinatorKind kind, String key) {
        invalidatedCoordinators.add(new CoordinatorKey(kind, key));
        Integer next = poll(nextCoordinators.get(key));
        if (next != null) {
            withCoordinator(key, next);
        }
    }

    private static Integer poll(Queue<Integer> queue) {
        return queue == null ? null : queue.poll();
    }
}
