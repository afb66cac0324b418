package org.kafscale.proxy.routing.coordinator;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Reads what a decoded coordinator request is keyed by: the groups, or the transactional id. One
 * place per API, all through kafka-clients' generated data classes.
 */
public final class RoutingKeys {
    private RoutingKeys() {
    }

    /** The groups a group-keyed request names, in request order, without repeats. */
    public static Set<String> groups(ApiMessage request) {
        Set<String> groups = new LinkedHashSet<>();
        if (request instanceof JoinGroupRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof SyncGroupRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof HeartbeatRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof LeaveGroupRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof OffsetCommitRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof TxnOffsetCommitRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof OffsetDeleteRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof ConsumerGroupHeartbeatRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof ShareGroupHeartbeatRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof StreamsGroupHeartbeatRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof AlterShareGroupOffsetsRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof DeleteShareGroupOffsetsRequestData r) {
            groups.add(r.groupId());
        } else if (request instanceof OffsetFetchRequestData r) {
            if (r.groups().isEmpty()) {
                groups.add(r.groupId());
            } else {
                r.groups().forEach(g -> groups.add(g.groupId()));
            }
        } else if (request instanceof DescribeGroupsRequestData r) {
            groups.addAll(r.groups());
        } else if (request instanceof DeleteGroupsRequestData r) {
            groups.addAll(r.groupsNames());
        } else if (request instanceof ConsumerGroupDescribeRequestData r) {
            groups.addAll(r.groupIds());
        } else if (request instanceof ShareGroupDescribeRequestData r) {
            groups.addAll(r.groupIds());
        } else if (request instanceof StreamsGroupDescribeRequestData r) {
            groups.addAll(r.groupIds());
        } else if (request instanceof DescribeShareGroupOffsetsRequestData r) {
            r.groups().forEach(g -> groups.add(g.groupId()));
        } else {
            throw new IllegalArgumentException(request.apiKey() + " is not keyed by group");
        }
        return groups;
    }

    /** The transactional id a transaction API names; empty for an idempotent-only InitProducerId. */
    public static Optional<String> transactionalId(ApiMessage request) {
        String id;
        if (request instanceof InitProducerIdRequestData r) {
            id = r.transactionalId();
        } else if (request instanceof AddPartitionsToTxnRequestData r) {
            id = !r.v3AndBelowTransactionalId().isEmpty() ? r.v3AndBelowTransactionalId()
                    : r.transactions().isEmpty() ? null : r.transactions().iterator().next().transactionalId();
        } else if (request instanceof AddOffsetsToTxnRequestData r) {
            id = r.transactionalId();
        } else if (request instanceof EndTxnRequestData r) {
            id = r.transactionalId();
        } else {
            throw new IllegalArgumentException(request.apiKey() + " is not keyed by transactional id");
        }
        return Optional.ofNullable(id).filter(s -> !s.isEmpty());
    }
}
