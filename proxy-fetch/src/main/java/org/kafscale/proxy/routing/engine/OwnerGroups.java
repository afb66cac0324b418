package org.kafscale.proxy.routing.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/** Groups a request's partitions by the broker that owns each now, for one attempt. */
public final class OwnerGroups {
    /** The key of partitions with no usable owner: unknown topic, no owner, or an owner that refused them. */
    public static final int NO_OWNER = -1;

    private OwnerGroups() {
    }

    /** Whether a broker already refused a partition in this request. */
    @FunctionalInterface
    public interface Refusals {
        Refusals NONE = (ref, brokerId) -> false;

        boolean refused(PartitionRef ref, int brokerId);
    }

    /**
     * @param refusals brokers that already answered a partition with a leader-class error in this
     *                 request; a partition is never sent to the same broker twice
     * @return partitions by owner id, in the order each owner first appears; {@link #NO_OWNER} for the rest
     */
    public static Map<Integer, List<PartitionRef>> of(Collection<PartitionRef> refs, TopologySnapshot snapshot,
                                                      Refusals refusals) {
        Map<Integer, List<PartitionRef>> byOwner = new LinkedHashMap<>();
        for (PartitionRef ref : refs) {
            OptionalInt owner = ref.routingName() == null ? OptionalInt.empty()
                    : snapshot.owner(ref.routingName(), ref.partition());
            int target = owner.isPresent() && !refusals.refused(ref, owner.getAsInt()) ? owner.getAsInt() : NO_OWNER;
            byOwner.computeIfAbsent(target, o -> new ArrayList<>()).add(ref);
        }
        return byOwner;
    }

    /**
     * Why a partition has no owner to go to: an unknown topic (by name or id), a partition the topic
     * does not have (as a broker answers it: not retriable, so a producer does not retry until its
     * delivery timeout), or no live owner.
     */
    public static Errors whyNoOwner(PartitionRef ref, TopologySnapshot snapshot) {
        if (ref.routingName() == null) {
            return Errors.UNKNOWN_TOPIC_ID;
        }
        return snapshot.topic(ref.routingName())
                .map(topic -> topic.partitions().containsKey(ref.partition())
                        ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .orElse(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
}
