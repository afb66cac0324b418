package org.kafscale.proxy.core.topology;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A picture of the cluster as the source last said it: brokers, topics (by name and by id) and
 * partition owners, plus the routes brokers have refused since.
 *
 * <p>Sources build a new snapshot and swap it in atomically; event loops read the current one
 * without locks and never see a half-built view.
 *
 * <p>What is immutable: everything the source said (brokers, topics, ids, every
 * {@link PartitionLayout}, including its {@code owner}). What is not: the set of
 * {@linkplain #invalidate invalidated routes}, partitions whose owner answered with a leader-class
 * error. A broker's word is newer than the source's, and it arrives on event loops, once per
 * partition per connection during a failover; a new snapshot per answer would copy every topic
 * and re-index the ids each time, O(topics) per answer on an event loop. So an invalidation is one
 * insert into a concurrent set that {@link #owner} consults: O(1), lock-free for readers and
 * writers. Route through {@link #owner}: a layout's {@code owner} stays the source's word. The set
 * only grows, and only with partitions this snapshot lists, so it is bounded by the snapshot's
 * size. A new snapshot from the source starts with none: the source's next word wins, and a
 * route the source still gets wrong is refused (and invalidated) again by its broker.
 */
public final class TopologySnapshot {

    public static final TopologySnapshot EMPTY = of(null, -1, List.of(), List.of());

    private final String clusterId;
    private final int controllerId;
    private final Map<Integer, BrokerEndpoint> brokers;
    private final Map<String, TopicLayout> topics;
    private final Map<Uuid, TopicLayout> topicsById;
    private final Set<TopicPartition> invalidated = ConcurrentHashMap.newKeySet();

    private TopologySnapshot(String clusterId, int controllerId, Map<Integer, BrokerEndpoint> brokers,
                             Map<String, TopicLayout> topics) {
        this.clusterId = clusterId;
        this.controllerId = controllerId;
        this.brokers = Collections.unmodifiableMap(brokers);
        this.topics = Collections.unmodifiableMap(topics);
        Map<Uuid, TopicLayout> byId = new HashMap<>();
        topics.values().stream().filter(t -> !Uuid.ZERO_UUID.equals(t.id())).forEach(t -> byId.put(t.id(), t));
        this.topicsById = Collections.unmodifiableMap(byId);
    }

    /** Builds a snapshot; brokers and topics are ordered by id and name so answers are stable. */
    public static TopologySnapshot of(String clusterId, int controllerId, Collection<BrokerEndpoint> brokers,
                                      Collection<TopicLayout> topics) {
        Map<Integer, BrokerEndpoint> byId = new LinkedHashMap<>();
        brokers.stream().sorted(Comparator.comparingInt(BrokerEndpoint::id)).forEach(b -> byId.put(b.id(), b));
        Map<String, TopicLayout> byName = new LinkedHashMap<>();
        topics.stream().sorted(Comparator.comparing(TopicLayout::name)).forEach(t -> byName.put(t.name(), t));
        return new TopologySnapshot(clusterId, controllerId, byId, byName);
    }

    /** The cluster id to report to clients, or null. */
    public String clusterId() {
        return clusterId;
    }

    /** The controller's broker id, or -1. */
    public int controllerId() {
        return controllerId;
    }

    /** Brokers by id, in id order. */
    public Map<Integer, BrokerEndpoint> brokers() {
        return brokers;
    }

    /** Topics by name, in name order. */
    public Map<String, TopicLayout> topics() {
        return topics;
    }

    public boolean hasBrokers() {
        return !brokers.isEmpty();
    }

    public List<Integer> brokerIds() {
        return List.copyOf(brokers.keySet());
    }

    public Optional<BrokerEndpoint> broker(int id) {
        return Optional.ofNullable(brokers.get(id));
    }

    public Optional<TopicLayout> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    public Optional<TopicLayout> topic(Uuid id) {
        return Optional.ofNullable(topicsById.get(id));
    }

    /**
     * The broker that owns a partition: the one the source named, when the snapshot also lists
     * that broker and no broker has refused the route since.
     */
    public OptionalInt owner(String topic, int partition) {
        TopicLayout layout = topics.get(topic);
        PartitionLayout p = layout == null ? null : layout.partitions().get(partition);
        if (p == null || !p.hasOwner() || !brokers.containsKey(p.owner())) {
            return OptionalInt.empty();
        }
        // The emptiness check first keeps the steady state (nothing refused) free of a key per lookup.
        if (!invalidated.isEmpty() && invalidated.contains(new TopicPartition(topic, partition))) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(p.owner());
    }

    /**
     * A broker said it does not own this partition: {@link #owner} names no owner for it from now
     * on, in this snapshot only. Safe from any thread; readers never wait.
     *
     * @return true when this call dropped the route, false when it was already dropped or the
     *     snapshot does not list the partition (nothing is recorded then)
     */
    public boolean invalidate(String topic, int partition) {
        TopicLayout layout = topics.get(topic);
        if (layout == null || !layout.partitions().containsKey(partition)) {
            return false;
        }
        return invalidated.add(new TopicPartition(topic, partition));
    }

    /** The routes dropped by {@link #invalidate} so far (a live, read-only view). */
    public Set<TopicPartition> invalidated() {
        return Collections.unmodifiableSet(invalidated);
    }

    @Override
    public String toString() {
        return "TopologySnapshot{cluster=" + clusterId + ", brokers=" + brokers.keySet()
                + ", topics=" + topics.size() + ", invalidated=" + invalidated.size() + "}";
    }
}
