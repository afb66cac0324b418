package org.kafscale.proxy.core.topology;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * One partition as a request names it: by topic name, or (Produce and Fetch v13+) by topic id.
 *
 * <p>Two refs are equal when the request names the same partition the same way; the name the
 * topology resolved it to ({@link #routingName()}) is along for routing and takes no part in
 * equality, because a later snapshot may resolve the same wire name differently.
 */
public final class PartitionRef {
    private final String name;
    private final Uuid topicId;
    private final int partition;
    private final String routingName;
    /** Made on first use (by the answer lookup); a race makes two equal keys, which is harmless. */
    private AnswerKey answerKey;

    /**
     * @param name the name on the wire, or null/empty when the request uses ids
     * @param topicId the id on the wire, or null/zero when the request uses names
     * @param partition the partition index
     * @param routingName the resolved name used to find the owner, or null when the id is unknown
     */
    public PartitionRef(String name, Uuid topicId, int partition, String routingName) {
        this.name = name == null || name.isEmpty() ? null : name;
        this.topicId = topicId == null || Uuid.ZERO_UUID.equals(topicId) ? null : topicId;
        this.partition = partition;
        this.routingName = routingName;
    }

    /** The partition as the request names it, resolved against {@code snapshot} for routing. */
    public static PartitionRef of(String name, Uuid topicId, int partition, TopologySnapshot snapshot) {
        String resolved = name != null && !name.isEmpty() ? name
                : topicId == null ? null : snapshot.topic(topicId).map(TopicLayout::name).orElse(null);
        return new PartitionRef(name, topicId, partition, resolved);
    }

    /** A partition named by topic name only (the APIs before topic ids). */
    public static PartitionRef byName(String name, int partition) {
        return new PartitionRef(name, null, partition, name);
    }

    /** The name on the wire, or null when the request names the topic by id. */
    public String name() {
        return name;
    }

    /** The id on the wire, or null when the request names the topic by name. */
    public Uuid topicId() {
        return topicId;
    }

    public int partition() {
        return partition;
    }

    /** The name the topology knows the topic by, or null when its id is unknown. */
    public String routingName() {
        return routingName;
    }

    /** A key that matches the same partition in a broker's answer. */
    public static AnswerKey answerKey(String name, Uuid topicId, int partition) {
        return name != null && !name.isEmpty() ? new AnswerKey(name, null, partition)
                : new AnswerKey(null, topicId, partition);
    }

    public AnswerKey answerKey() {
        AnswerKey key = answerKey;
        if (key == null) {
            key = answerKey(name, topicId, partition);
            answerKey = key;
        }
        return key;
    }

    /** The topic as the request names it, for grouping partitions back under their topic. */
    public TopicRef topic() {
        return new TopicRef(name, topicId);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionRef ref && partition == ref.partition
                && Objects.equals(name, ref.name) && Objects.equals(topicId, ref.topicId);
    }

    @Override
    public int hashCode() {
        // By hand: Objects.hash boxes the partition into a new array on every map lookup.
        return (31 * Objects.hashCode(name) + Objects.hashCode(topicId)) * 31 + partition;
    }

    @Override
    public String toString() {
        return (routingName != null ? routingName : name != null ? name : "id:" + topicId) + "-" + partition;
    }

    /**
     * How a request or an answer names one partition, so that the two can be matched: by topic name
     * when it has one, else by topic id. A value rather than a string: building {@code "id:<base64
     * id>-<partition>"} for every partition of every answer was a tenth of the proxy's allocations
     * in a produce profile (Produce v13 and later name topics by id).
     *
     * @param name the topic name, or null when the partition is named by id
     * @param topicId the topic id when there is no name (null when there is neither)
     */
    public record AnswerKey(String name, Uuid topicId, int partition) {
    }

    /**
     * A topic as a request names it.
     *
     * @param name the name on the wire, or null
     * @param topicId the id on the wire, or null
     */
    public record TopicRef(String name, Uuid topicId) {
        /** The name to write back in a request or answer: "" when the topic goes by id. */
        public String wireName() {
            return name == null ? "" : name;
        }

        /** The id to write back in a request or answer: zero when the topic goes by name. */
        public Uuid wireId() {
            return topicId == null ? Uuid.ZERO_UUID : topicId;
        }
    }
}
