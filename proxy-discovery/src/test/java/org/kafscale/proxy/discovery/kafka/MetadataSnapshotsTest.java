package org.kafscale.proxy.discovery.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.OptionalInt;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.TopologySnapshot;

class MetadataSnapshotsTest {

    /** A broker's Metadata answer: brokers 1 and 2, and each topic with one partition led by {@code leader}. */
    private static MetadataResponseData answer(int leader, String... topics) {
        MetadataResponseData data = new MetadataResponseData().setClusterId("cluster").setControllerId(1);
        data.brokers().add(new MetadataResponseBroker().setNodeId(1).setHost("b1").setPort(9092));
        data.brokers().add(new MetadataResponseBroker().setNodeId(2).setHost("b2").setPort(9092));
        for (String name : topics) {
            MetadataResponseTopic topic = new MetadataResponseTopic().setName(name).setTopicId(Uuid.randomUuid());
            topic.partitions().add(new MetadataResponsePartition().setPartitionIndex(0).setLeaderId(leader)
                    .setReplicaNodes(List.of(leader)).setIsrNodes(List.of(leader)));
            data.topics().add(topic);
        }
        return data;
    }

    @Test
    void routesDroppedInTopicsTheAnswerDoesNotCoverStayDropped() {
        // Given: broker 1 refused orders-0 after the full read
        TopologySnapshot base = MetadataSnapshots.fromMetadata(answer(1, "orders", "payments"));
        base.invalidate("orders", 0);
        // When: a lookup of another topic merges its answer in
        TopologySnapshot merged = MetadataSnapshots.merge(base, answer(1, "payments"));
        // Then: nothing newer than the refusal was said about orders
        assertEquals(OptionalInt.empty(), merged.owner("orders", 0));
        assertEquals(OptionalInt.of(1), merged.owner("payments", 0));
    }

    @Test
    void topicsTheAnswerCoversTakeItsLeaders() {
        // Given
        TopologySnapshot base = MetadataSnapshots.fromMetadata(answer(1, "orders"));
        base.invalidate("orders", 0);
        // When: the lookup's answer names the new leader
        TopologySnapshot merged = MetadataSnapshots.merge(base, answer(2, "orders"));
        // Then
        assertEquals(OptionalInt.of(2), merged.owner("orders", 0));
    }
}
