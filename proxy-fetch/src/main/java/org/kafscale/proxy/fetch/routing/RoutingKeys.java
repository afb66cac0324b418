package org.kafscale.proxy.fetch.routing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Reads what a decoded request is keyed by: the partitions it names, the groups, or the
 * transactional id. One place per API, all through kafka-clients' generated data classes.
 */
final class RoutingKeys {
    private RoutingKeys() {
    }

    /**
     * A partition a request names. {@code topic} is null when the request names the topic by an
     * id the snapshot does not know.
     */
    record TopicPartitionKey(String topic, Uuid topicId, int partition) {
    }

    /** The partitions a partition-keyed request names, with topic ids resolved to names. */
    static List<TopicPartitionKey> partitions(AbstractRequest request, TopologySnapshot snapshot) {
        List<TopicPartitionKey> keys = new ArrayList<>();
        if (request instanceof ProduceRequest produce) {
            produce.data().topicData().forEach(t -> t.partitionData().forEach(p ->
                    keys.add(key(t.name(), t.topicId(), p.index(), snapshot))));
        } else if (request instanceof FetchRequest fetch) {
            fetch.data().topics().forEach(t -> t.partitions().forEach(p ->
                    keys.add(key(t.topic(), t.topicId(), p.partition(), snapshot))));
        } else if (request instanceof ListOffsetsRequest listOffsets) {
            listOffsets.data().topics().forEach(t -> t.partitions().forEach(p ->
                    keys.add(key(t.name(), null, p.partitionIndex(), snapshot))));
        } else if (request instanceof OffsetsForLeaderEpochRequest epochs) {
            epochs.data().topics().forEach(t -> t.partitions().forEach(p ->
                    keys.add(key(t.topic(), null, p.partition(), snapshot))));
        } else if (request instanceof DeleteRecordsRequest deleteRecords) {
            deleteRecords.data().topics().forEach(t -> t.partitions().forEach(p ->
                    keys.add(key(t.name(), null, p.partitionIndex(), snapshot))));
        } else {
            throw new IllegalArgumentException(request.apiKey() + " is not keyed by partition");
        }
        return keys;
    }

    private static TopicPartitionKey key(String name, Uuid id, int partition, TopologySnapshot snapshot) {
        if (name != null && !name.isEmpty()) {
            return new TopicPartitionKey(name, id, partition);
        }
        String resolved = id == null ? null : snapshot.topic(id).map(t -> t.name()).orElse(null);
        return new TopicPartitionKey(resolved, id, partition);
    }

    /** The groups a group-keyed request names, in request order, without repeats. */
    static Set<String> groups(AbstractRequest request) {
        Set<String> groups = new LinkedHashSet<>();
        if (request instanceof JoinGroupRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof SyncGroupRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof HeartbeatRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof LeaveGroupRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof OffsetCommitRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof TxnOffsetCommitRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof OffsetDeleteRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof ConsumerGroupHeartbeatRequest r) {
            groups.add(r.data().groupId());
        } else if (request instanceof OffsetFetchRequest r) {
            if (r.data().groups().isEmpty()) {
                groups.add(r.data().groupId());
            } else {
                r.data().groups().forEach(g -> groups.add(g.groupId()));
            }
        } else if (request instanceof DescribeGroupsRequest r) {
            groups.addAll(r.data().groups());
        } else if (request instanceof DeleteGroupsRequest r) {
            groups.addAll(r.data().groupsNames());
        } else if (request instanceof ConsumerGroupDescribeRequest r) {
            groups.addAll(r.data().groupIds());
        } else {
            throw new IllegalArgumentException(request.apiKey() + " is not keyed by group");
        }
        return groups;
    }

    /** The transactional id a transaction API names; empty for an idempotent-only InitProducerId. */
    static Optional<String> transactionalId(AbstractRequest request) {
        String id;
        if (request instanceof InitProducerIdRequest r) {
            id = r.data().transactionalId();
        } else if (request instanceof AddPartitionsToTxnRequest r) {
            id = r.version() <= 3 ? r.data().v3AndBelowTransactionalId()
                    : r.data().transactions().isEmpty() ? null : r.data().transactions().iterator().next().transactionalId();
        } else if (request instanceof AddOffsetsToTxnRequest r) {
            id = r.data().transactionalId();
        } else if (request instanceof EndTxnRequest r) {
            id = r.data().transactionalId();
        } else {
            throw new IllegalArgumentException(request.apiKey() + " is not keyed by transactional id");
        }
        return Optional.ofNullable(id).filter(s -> !s.isEmpty());
    }
}
