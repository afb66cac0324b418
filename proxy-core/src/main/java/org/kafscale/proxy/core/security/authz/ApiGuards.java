package org.kafscale.proxy.core.security.authz;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Which check each API key gets. Every API the proxy serves has one; a key added to the served
 * APIs without an entry here (and not {@link #UNCHECKED}) is refused whole with
 * CLUSTER_AUTHORIZATION_FAILED while ACLs are on (fail closed).
 */
final class ApiGuards {
    /** Allowed to anyone: connection set-up and the cluster's description (Kafka checks no ACL for them). */
    static final Set<ApiKeys> UNCHECKED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE,
            ApiKeys.SASL_AUTHENTICATE, ApiKeys.DESCRIBE_CLUSTER);

    private static final Map<ApiKeys, ApiGuard<ApiMessage>> GUARDS = new EnumMap<>(ApiKeys.class);

    static {
        add(ApiKeys.PRODUCE, ProduceRequestData.class, TopicGuards::produce);
        add(ApiKeys.FETCH, FetchRequestData.class, TopicGuards::fetch);
        add(ApiKeys.LIST_OFFSETS, ListOffsetsRequestData.class, TopicGuards::listOffsets);
        add(ApiKeys.OFFSET_FOR_LEADER_EPOCH, OffsetForLeaderEpochRequestData.class, TopicGuards::offsetForLeaderEpoch);
        add(ApiKeys.DELETE_RECORDS, DeleteRecordsRequestData.class, TopicGuards::deleteRecords);
        add(ApiKeys.DESCRIBE_PRODUCERS, DescribeProducersRequestData.class, TopicGuards::describeProducers);
        add(ApiKeys.CREATE_TOPICS, CreateTopicsRequestData.class, TopicGuards::createTopics);
        add(ApiKeys.DELETE_TOPICS, DeleteTopicsRequestData.class, TopicGuards::deleteTopics);
        add(ApiKeys.CREATE_PARTITIONS, CreatePartitionsRequestData.class, TopicGuards::createPartitions);
        add(ApiKeys.METADATA, MetadataRequestData.class, TopicGuards::metadata);
        add(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, DescribeTopicPartitionsRequestData.class,
                TopicGuards::describeTopicPartitions);

        add(ApiKeys.DESCRIBE_CONFIGS, DescribeConfigsRequestData.class, ConfigGuards::describeConfigs);
        add(ApiKeys.ALTER_CONFIGS, AlterConfigsRequestData.class, ConfigGuards::alterConfigs);
        add(ApiKeys.INCREMENTAL_ALTER_CONFIGS, IncrementalAlterConfigsRequestData.class,
                ConfigGuards::incrementalAlterConfigs);

        add(ApiKeys.JOIN_GROUP, JoinGroupRequestData.class, (q, v, a) -> GroupGuards.oneGroup(q.groupId(), AclOperation.READ, a));
        add(ApiKeys.SYNC_GROUP, SyncGroupRequestData.class, (q, v, a) -> GroupGuards.oneGroup(q.groupId(), AclOperation.READ, a));
        add(ApiKeys.HEARTBEAT, HeartbeatRequestData.class, (q, v, a) -> GroupGuards.oneGroup(q.groupId(), AclOperation.READ, a));
        add(ApiKeys.LEAVE_GROUP, LeaveGroupRequestData.class, (q, v, a) -> GroupGuards.oneGroup(q.groupId(), AclOperation.READ, a));
        add(ApiKeys.CONSUMER_GROUP_HEARTBEAT, ConsumerGroupHeartbeatRequestData.class,
                (q, v, a) -> GroupGuards.oneGroup(q.groupId(), AclOperation.READ, a));
        add(ApiKeys.OFFSET_COMMIT, OffsetCommitRequestData.class, GroupGuards::offsetCommit);
        add(ApiKeys.OFFSET_DELETE, OffsetDeleteRequestData.class, GroupGuards::offsetDelete);
        add(ApiKeys.OFFSET_FETCH, OffsetFetchRequestData.class, GroupGuards::offsetFetch);
        add(ApiKeys.DESCRIBE_GROUPS, DescribeGroupsRequestData.class, GroupGuards::describeGroups);
        add(ApiKeys.CONSUMER_GROUP_DESCRIBE, ConsumerGroupDescribeRequestData.class, GroupGuards::consumerGroupDescribe);
        add(ApiKeys.DELETE_GROUPS, DeleteGroupsRequestData.class, GroupGuards::deleteGroups);
        add(ApiKeys.LIST_GROUPS, ApiMessage.class, GroupGuards::listGroups);
        add(ApiKeys.FIND_COORDINATOR, FindCoordinatorRequestData.class, GroupGuards::findCoordinator);

        add(ApiKeys.SHARE_GROUP_HEARTBEAT, ShareGroupHeartbeatRequestData.class, ShareGuards::heartbeat);
        add(ApiKeys.SHARE_FETCH, ShareFetchRequestData.class, ShareGuards::fetch);
        add(ApiKeys.SHARE_ACKNOWLEDGE, ShareAcknowledgeRequestData.class, ShareGuards::acknowledge);
        add(ApiKeys.SHARE_GROUP_DESCRIBE, ShareGroupDescribeRequestData.class, ShareGuards::describe);
        add(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, DescribeShareGroupOffsetsRequestData.class, ShareOffsetGuards::describe);
        add(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, AlterShareGroupOffsetsRequestData.class, ShareOffsetGuards::alter);
        add(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, DeleteShareGroupOffsetsRequestData.class, ShareOffsetGuards::delete);

        add(ApiKeys.STREAMS_GROUP_HEARTBEAT, StreamsGroupHeartbeatRequestData.class, StreamsGuards::heartbeat);
        add(ApiKeys.STREAMS_GROUP_DESCRIBE, StreamsGroupDescribeRequestData.class, StreamsGuards::describe);

        add(ApiKeys.INIT_PRODUCER_ID, InitProducerIdRequestData.class, TransactionGuards::initProducerId);
        add(ApiKeys.ADD_PARTITIONS_TO_TXN, AddPartitionsToTxnRequestData.class, TransactionGuards::addPartitionsToTxn);
        add(ApiKeys.ADD_OFFSETS_TO_TXN, AddOffsetsToTxnRequestData.class, TransactionGuards::addOffsetsToTxn);
        add(ApiKeys.END_TXN, EndTxnRequestData.class, TransactionGuards::endTxn);
        add(ApiKeys.TXN_OFFSET_COMMIT, TxnOffsetCommitRequestData.class, TransactionGuards::txnOffsetCommit);
        add(ApiKeys.DESCRIBE_TRANSACTIONS, DescribeTransactionsRequestData.class, TransactionGuards::describeTransactions);
        add(ApiKeys.LIST_TRANSACTIONS, ApiMessage.class, TransactionGuards::listTransactions);

        // Admin APIs Kafka checks against the cluster resource.
        cluster(ApiKeys.DESCRIBE_ACLS, AclOperation.DESCRIBE);
        cluster(ApiKeys.CREATE_ACLS, AclOperation.ALTER);
        cluster(ApiKeys.DELETE_ACLS, AclOperation.ALTER);
        cluster(ApiKeys.DESCRIBE_CLIENT_QUOTAS, AclOperation.DESCRIBE_CONFIGS);
        cluster(ApiKeys.ALTER_CLIENT_QUOTAS, AclOperation.ALTER_CONFIGS);
        cluster(ApiKeys.ELECT_LEADERS, AclOperation.ALTER);
        cluster(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, AclOperation.ALTER);
        cluster(ApiKeys.LIST_PARTITION_REASSIGNMENTS, AclOperation.DESCRIBE);
        cluster(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, AclOperation.DESCRIBE);
        cluster(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, AclOperation.ALTER);
        cluster(ApiKeys.UPDATE_FEATURES, AclOperation.ALTER);
        cluster(ApiKeys.LIST_CONFIG_RESOURCES, AclOperation.DESCRIBE_CONFIGS);
        cluster(ApiKeys.DESCRIBE_QUORUM, AclOperation.DESCRIBE);
        cluster(ApiKeys.DESCRIBE_LOG_DIRS, AclOperation.DESCRIBE);
        cluster(ApiKeys.ALTER_REPLICA_LOG_DIRS, AclOperation.ALTER);
        cluster(ApiKeys.WRITE_TXN_MARKERS, AclOperation.CLUSTER_ACTION);
    }

    private ApiGuards() {
    }

    /** The decision for {@code request} of {@code api}; the unmapped keys are refused. */
    static Verdict check(ApiKeys api, ApiMessage request, short version, Access access) {
        ApiGuard<ApiMessage> guard = GUARDS.get(api);
        if (guard == null) {
            access.cluster(AclOperation.ALL);
            return new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED);
        }
        return guard.check(request, version, access);
    }

    /** Whether {@code api} has a check of its own (the rest, but {@link #UNCHECKED}, are refused). */
    static boolean mapped(ApiKeys api) {
        return GUARDS.containsKey(api);
    }

    private static <Q extends ApiMessage> void add(ApiKeys api, Class<Q> type, ApiGuard<Q> guard) {
        GUARDS.put(api, (request, version, access) -> guard.check(type.cast(request), version, access));
    }

    private static void cluster(ApiKeys api, AclOperation operation) {
        GUARDS.put(api, (request, version, access) -> access.cluster(operation) ? Verdict.ALLOW
                : new Verdict.Refuse(Errors.CLUSTER_AUTHORIZATION_FAILED));
    }
}
