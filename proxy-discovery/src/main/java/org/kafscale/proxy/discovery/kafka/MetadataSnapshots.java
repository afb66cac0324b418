package org.kafscale.proxy.discovery.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/** Turns a broker's Metadata answer into a {@link TopologySnapshot}. */
final class MetadataSnapshots {
    private MetadataSnapshots() {
    }

    static TopologySnapshot fromMetadata(MetadataResponseData data) {
        List<BrokerEndpoint> brokers = new ArrayList<>();
        for (MetadataResponseBroker b : data.brokers()) {
            brokers.add(new BrokerEndpoint(b.nodeId(), b.host(), b.port(), b.rack()));
        }
        List<TopicLayout> topics = new ArrayList<>();
        for (MetadataResponseTopic t : data.topics()) {
            if (t.errorCode() == Errors.NONE.code() && t.name() != null) {
                topics.add(topic(t));
            }
        }
        return TopologySnapshot.of(data.clusterId(), data.controllerId(), brokers, topics);
    }

    /**
     * Adds or replaces the topics of {@code data} in {@code base}; brokers come from the newer
     * answer. Routes {@code base} had dropped stay dropped in the topics the answer does not cover:
     * for those, the source has said nothing newer than the broker that refused them.
     */
    static TopologySnapshot merge(TopologySnapshot base, MetadataResponseData data) {
        TopologySnapshot update = fromMetadata(data);
        Map<String, TopicLayout> topics = new HashMap<>(base.topics());
        topics.putAll(update.topics());
        TopologySnapshot merged = TopologySnapshot.of(update.clusterId(), update.controllerId(),
                update.hasBrokers() ? update.brokers().values() : base.brokers().values(), topics.values());
        for (TopicPartition dropped : base.invalidated()) {
            if (!update.topics().containsKey(dropped.topic())) {
                merged.invalidate(dropped.topic(), dropped.partition());
            }
        }
        return merged;
    }

    private static TopicLayout topic(MetadataResponseTopic t) {
        Map<Integer, PartitionLayout> partitions = new HashMap<>();
        for (MetadataResponsePartition p : t.partitions()) {
            int owner = p.errorCode() == Errors.NONE.code() || p.leaderId() >= 0 ? p.leaderId() : PartitionLayout.NO_OWNER;
            partitions.put(p.partitionIndex(), new PartitionLayout(p.partitionIndex(), owner < 0 ? PartitionLayout.NO_OWNER : owner,
                    p.leaderEpoch(), p.replicaNodes(), p.isrNodes(), p.offlineReplicas()));
        }
        return TopicLayout.of(t.name(), t.topicId(), t.isInternal(), partitions);
    }
}
