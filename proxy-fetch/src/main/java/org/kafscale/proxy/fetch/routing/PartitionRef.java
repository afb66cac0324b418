package org.kafscale.proxy.fetch.routing;

import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * One partition as a request names it: by topic name, or (Produce and Fetch v13+) by topic id.
 * {@code routingName} is the name the topology knows it by, or null when the id is unknown.
 *
 * @param name the name on the wire, or null/empty when the request uses ids
 * @param topicId the id on the wire, or null/zero when the request uses names
 * @param partition the partition index
 * @param routingName the resolved name used to find the owner
 */
public record PartitionRef(String name, Uuid topicId, int partition, String routingName) {

    public static PartitionRef of(String name, Uuid topicId, int partition, TopologySnapshot snapshot) {
        String resolved = name != null && !name.isEmpty() ? name
                : topicId == null ? null : snapshot.topic(topicId).map(t -> t.name()).orElse(null);
        return new PartitionRef(name, topicId, partition, resolved);
    }

    /** Identity is what the request says; the resolved name may change with the topology. */
    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionRef ref && partition == ref.partition
                && java.util.Objects.equals(wireName(), ref.wireName())
                && java.util.Objects.equals(wireId(), ref.wireId());
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(wireName(), wireId(), partition);
    }

    private String wireName() {
        return name == null || name.isEmpty() ? null : name;
    }

    private Uuid wireId() {
        return topicId == null || Uuid.ZERO_UUID.equals(topicId) ? null : topicId;
    }

    /** A key that matches the same partition in a broker's answer. */
    public static String answerKey(String name, Uuid topicId, int partition) {
        return (name != null && !name.isEmpty() ? name : "id:" + topicId) + "-" + partition;
    }

    public String answerKey() {
        return answerKey(name, topicId, partition);
    }

    /** The topic as the request names it, for grouping partitions back under their topic. */
    public TopicRef topic() {
        return new TopicRef(name, topicId);
    }

    /** A topic as a request names it. */
    public record TopicRef(String name, Uuid topicId) {
    }
}
