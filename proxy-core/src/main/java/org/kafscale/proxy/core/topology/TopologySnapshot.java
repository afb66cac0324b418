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
import org.apache.kafka.common.Uuid;

/**
 * An immutable picture of the cluster: brokers, topics (by name and by id) and partition owners.
 *
 * <p>Sources build a new snapshot and swap it in atomically; event loops read the current one
 * without locks and never see a half-built view.
 */
public final class TopologySnapshot {

    public static final TopologySnapshot EMPTY = of(null, -1, List.of(), List.of());

    private final String clusterId;
    private final int controllerId;
    private final Map<Integer, BrokerEndpoint> brokers;
    private final Map<String, TopicLayout> topics;
    private final Map<Uuid, TopicLayout> topicsById;

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

    /** The broker that owns a partition, when the snapshot names one and also lists that broker. */
    public OptionalInt owner(String topic, int partition) {
        TopicLayout layout = topics.get(topic);
        PartitionLayout p = layout == null ? null : layout.partitions().get(partition);
        if (p == null || !p.hasOwner() || !brokers.containsKey(p.owner())) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(p.owner());
    }

    /** A copy with one partition's owner cleared, used when a broker says it no longer owns it. */
    public TopologySnapshot withoutOwner(String topic, int partition) {
        TopicLayout layout = topics.get(topic);
        if (layout == null || !layout.partitions().containsKey(partition)) {
            return this;
        }
        Map<Integer, PartitionLayout> partitions = new HashMap<>(layout.partitions());
        partitions.put(partition, partitions.get(partition).withOwner(PartitionLayout.NO_OWNER));
        Map<String, TopicLayout> newTopics = new LinkedHashMap<>(topics);
        newTopics.put(topic, TopicLayout.of(layout.name(), layout.id(), layout.internal(), partitions));
        return new TopologySnapshot(clusterId, controllerId, new LinkedHashMap<>(brokers), newTopics);
    }

    @Override
    public String toString() {
        return "TopologySnapshot{cluster=" + clusterId + ", brokers=" + brokers.keySet()
                + ", topics=" + topics.size() + "}";
    }
}
