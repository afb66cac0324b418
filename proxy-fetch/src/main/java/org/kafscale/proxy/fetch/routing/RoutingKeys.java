package org.kafscale.proxy.fetch.routing;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;

/**
 * Reads what a decoded coordinator request is keyed by: the groups, or the transactional id. One place per API, all through kafka-clients' generated data classes.
 */
final class RoutingKeys {
    private RoutingKeys() {
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
