package org.kafscale.proxy.core.apis;

import java.util.EnumMap;
import java.util.Map;
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
import org.kafscale.proxy.core.security.authz.ConfigGuards;
import org.kafscale.proxy.core.security.authz.GroupGuards;
import org.kafscale.proxy.core.security.authz.Guard;
import org.kafscale.proxy.core.security.authz.ShareGuards;
import org.kafscale.proxy.core.security.authz.ShareOffsetGuards;
import org.kafscale.proxy.core.security.authz.StreamsGuards;
import org.kafscale.proxy.core.security.authz.TopicGuards;
import org.kafscale.proxy.core.security.authz.TransactionGuards;

/**
 * The proxy's {@link ApiCatalog}: every API key kafka-clients knows, each with its {@link ApiSpec}:
 * where the proxy serves it (answered here, forwarded, only on a broker's own port) or why it
 * refuses it, its authorization {@link Guard}, and its row of the API table of
 * {@code docs/architecture.md}. Read only through {@link #catalog()}, which the composition
 * ({@code ProxyRuntime}) hands to the dispatcher, ApiVersions and the authorizer, so that the
 * table can join the route registry in proxy-fetch. How a forwarded key is routed is its route
 * spec in proxy-fetch ({@code routing.apis.Apis}), which a test there holds to this catalog.
 *
 * <p>Left out on purpose, each with its reason below: SASL (never forwarded; on a SASL listener
 * the listener's own gate, {@code core.security.sasl.SaslGate}, answers it), inter-broker and
 * controller APIs (but WriteTxnMarkers, which {@code kafka-transactions abort} sends to partition
 * leaders), and client telemetry, which a broker ties to the connection it was subscribed on.
 * APIs about one broker's disks (DescribeLogDirs) are served only on a connection that addresses
 * one broker. A key a kafka-clients upgrade adds has no spec until it is placed here, and a test
 * fails until then.
 */
public final class ApiSpecs {
    private static final Map<ApiKeys, ApiSpec> SPECS = new EnumMap<>(ApiKeys.class);
    private static final ApiCatalog CATALOG;

    static {
        answeredHere(ApiKeys.API_VERSIONS,
                Guard.unchecked(),
                "answered here: the versions kafka-clients and every broker support, "
                + "and the features finalized on every broker");
        answeredHere(ApiKeys.METADATA,
                Guard.of(MetadataRequestData.class, TopicGuards::metadata),
                "answered here from the topology, every node at the proxy's address "
                + "(single: node 0 leads everything; brokers: the real ids; ports: the real ids, each at its "
                + "own port)");
        answeredHere(ApiKeys.FIND_COORDINATOR,
                Guard.of(FindCoordinatorRequestData.class, GroupGuards::findCoordinator),
                "answered here: the coordinator the topology names (an etcd lease, "
                + "else a broker's own FindCoordinator), at the proxy's address");
        answeredHere(ApiKeys.DESCRIBE_CLUSTER,
                Guard.unchecked(),
                "answered here from the topology, like Metadata");
        answeredHere(ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
                Guard.of(DescribeTopicPartitionsRequestData.class, TopicGuards::describeTopicPartitions),
                "answered here from the topology, like Metadata, with its cursor");

        forwarded(ApiKeys.PRODUCE,
                Guard.of(ProduceRequestData.class, TopicGuards::produce),
                "split by partition owner and merged; acks=0 not awaited; batches with a "
                + "producer id sent once");
        forwarded(ApiKeys.FETCH,
                Guard.of(FetchRequestData.class, TopicGuards::fetch),
                "split by partition owner, sessionless, merged within the request's max_bytes; "
                + "the rack is not forwarded, so the leader serves");
        forwarded(ApiKeys.LIST_OFFSETS,
                Guard.of(ListOffsetsRequestData.class, TopicGuards::listOffsets),
                "split by partition owner and merged");
        forwarded(ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                Guard.of(OffsetForLeaderEpochRequestData.class, TopicGuards::offsetForLeaderEpoch),
                "split by partition owner and merged");
        forwarded(ApiKeys.DELETE_RECORDS,
                Guard.of(DeleteRecordsRequestData.class, TopicGuards::deleteRecords),
                "split by partition owner and merged");
        forwarded(ApiKeys.DESCRIBE_PRODUCERS,
                Guard.of(DescribeProducersRequestData.class, TopicGuards::describeProducers),
                "split by partition owner (the leader) and merged; on a broker's own "
                + "port (advertise mode ports) to that broker, so the Admin's brokerId option reaches a follower");
        forwarded(ApiKeys.WRITE_TXN_MARKERS,
                Guard.cluster(AclOperation.CLUSTER_ACTION),
                "split by partition owner and merged (Admin.abortTransaction)");

        forwarded(ApiKeys.JOIN_GROUP,
                Guard.readGroup(JoinGroupRequestData.class, JoinGroupRequestData::groupId),
                "to the group's coordinator; may be held for the rebalance timeout");
        forwarded(ApiKeys.SYNC_GROUP,
                Guard.readGroup(SyncGroupRequestData.class, SyncGroupRequestData::groupId),
                "to the group's coordinator; may be held for the rebalance timeout its "
                + "JoinGroup named");
        forwarded(ApiKeys.HEARTBEAT,
                Guard.readGroup(HeartbeatRequestData.class, HeartbeatRequestData::groupId),
                "to the group's coordinator");
        forwarded(ApiKeys.LEAVE_GROUP,
                Guard.readGroup(LeaveGroupRequestData.class, LeaveGroupRequestData::groupId),
                "to the group's coordinator");
        forwarded(ApiKeys.OFFSET_COMMIT,
                Guard.of(OffsetCommitRequestData.class, GroupGuards::offsetCommit),
                "to the group's coordinator");
        forwarded(ApiKeys.OFFSET_FETCH,
                Guard.of(OffsetFetchRequestData.class, GroupGuards::offsetFetch),
                "to the group's coordinator; v8+ naming several groups split per "
                + "coordinator and merged in request order");
        forwarded(ApiKeys.OFFSET_DELETE,
                Guard.of(OffsetDeleteRequestData.class, GroupGuards::offsetDelete),
                "to the group's coordinator");
        forwarded(ApiKeys.DESCRIBE_GROUPS,
                Guard.of(DescribeGroupsRequestData.class, GroupGuards::describeGroups),
                "split per coordinator, merged in request order");
        forwarded(ApiKeys.DELETE_GROUPS,
                Guard.of(DeleteGroupsRequestData.class, GroupGuards::deleteGroups),
                "split per coordinator, merged in request order");
        forwarded(ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                Guard.readGroup(ConsumerGroupHeartbeatRequestData.class,
                ConsumerGroupHeartbeatRequestData::groupId),
                "to the group's coordinator");
        forwarded(ApiKeys.CONSUMER_GROUP_DESCRIBE,
                Guard.of(ConsumerGroupDescribeRequestData.class, GroupGuards::consumerGroupDescribe),
                "split per coordinator, merged in request order");
        forwarded(ApiKeys.TXN_OFFSET_COMMIT,
                Guard.of(TxnOffsetCommitRequestData.class, TransactionGuards::txnOffsetCommit),
                "to the group's coordinator");
        forwarded(ApiKeys.LIST_GROUPS,
                Guard.of(ApiMessage.class, GroupGuards::listGroups),
                "to every broker, lists merged, each group once");

        forwarded(ApiKeys.INIT_PRODUCER_ID,
                Guard.of(InitProducerIdRequestData.class, TransactionGuards::initProducerId),
                "to the transactional id's coordinator; without one, any broker");
        forwarded(ApiKeys.ADD_PARTITIONS_TO_TXN,
                Guard.of(AddPartitionsToTxnRequestData.class, TransactionGuards::addPartitionsToTxn),
                "to the transactional id's coordinator");
        forwarded(ApiKeys.ADD_OFFSETS_TO_TXN,
                Guard.of(AddOffsetsToTxnRequestData.class, TransactionGuards::addOffsetsToTxn),
                "to the transactional id's coordinator");
        forwarded(ApiKeys.END_TXN,
                Guard.of(EndTxnRequestData.class, TransactionGuards::endTxn),
                "to the transactional id's coordinator");
        forwarded(ApiKeys.DESCRIBE_TRANSACTIONS,
                Guard.of(DescribeTransactionsRequestData.class, TransactionGuards::describeTransactions),
                "split per transaction coordinator, merged in request order");
        forwarded(ApiKeys.LIST_TRANSACTIONS,
                Guard.of(ApiMessage.class, TransactionGuards::listTransactions),
                "to every broker, lists merged, each transaction once");

        forwarded(ApiKeys.CREATE_TOPICS,
                Guard.of(CreateTopicsRequestData.class, TopicGuards::createTopics),
                "to any broker (it forwards to the controller); answered once the "
                + "topology shows the change");
        forwarded(ApiKeys.DELETE_TOPICS,
                Guard.of(DeleteTopicsRequestData.class, TopicGuards::deleteTopics),
                "to any broker; answered once the topology shows the change");
        forwarded(ApiKeys.CREATE_PARTITIONS,
                Guard.of(CreatePartitionsRequestData.class, TopicGuards::createPartitions),
                "to any broker; answered once the topology shows the change");
        forwarded(ApiKeys.DESCRIBE_CONFIGS,
                Guard.of(DescribeConfigsRequestData.class, ConfigGuards::describeConfigs),
                "split by resource: BROKER and BROKER_LOGGER to the broker they name, "
                + "others to any broker; broker addresses in values hidden");
        forwarded(ApiKeys.ALTER_CONFIGS,
                Guard.of(AlterConfigsRequestData.class, ConfigGuards::alterConfigs),
                "split by resource, as DescribeConfigs");
        forwarded(ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                Guard.of(IncrementalAlterConfigsRequestData.class, ConfigGuards::incrementalAlterConfigs),
                "split by resource, as DescribeConfigs");
        forwarded(ApiKeys.DESCRIBE_ACLS,
                Guard.cluster(AclOperation.DESCRIBE),
                "to any broker");
        forwarded(ApiKeys.CREATE_ACLS,
                Guard.cluster(AclOperation.ALTER),
                "to any broker");
        forwarded(ApiKeys.DELETE_ACLS,
                Guard.cluster(AclOperation.ALTER),
                "to any broker");
        forwarded(ApiKeys.DESCRIBE_CLIENT_QUOTAS,
                Guard.cluster(AclOperation.DESCRIBE_CONFIGS),
                "to any broker");
        forwarded(ApiKeys.ALTER_CLIENT_QUOTAS,
                Guard.cluster(AclOperation.ALTER_CONFIGS),
                "to any broker");
        forwarded(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
                Guard.cluster(AclOperation.DESCRIBE),
                "to any broker");
        forwarded(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                Guard.cluster(AclOperation.ALTER),
                "to any broker");
        forwarded(ApiKeys.ELECT_LEADERS,
                Guard.cluster(AclOperation.ALTER),
                "to any broker");
        forwarded(ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
                Guard.cluster(AclOperation.ALTER),
                "to any broker (real broker ids: see the single-mode limits)");
        forwarded(ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                Guard.cluster(AclOperation.DESCRIBE),
                "to any broker");
        forwarded(ApiKeys.UPDATE_FEATURES,
                Guard.cluster(AclOperation.ALTER),
                "to any broker");
        forwarded(ApiKeys.DESCRIBE_QUORUM,
                Guard.cluster(AclOperation.DESCRIBE),
                "to any broker; controller endpoints rewritten to the proxy's address");
        forwarded(ApiKeys.LIST_CONFIG_RESOURCES,
                Guard.cluster(AclOperation.DESCRIBE_CONFIGS),
                "to any broker");
        addressedBrokerOnly(ApiKeys.DESCRIBE_LOG_DIRS,
                Guard.cluster(AclOperation.DESCRIBE),
                "advertise mode ports only, on a broker's own port: to that broker "
                + "(about its disks); elsewhere not advertised and closed, since no connection names a broker");
        addressedBrokerOnly(ApiKeys.ALTER_REPLICA_LOG_DIRS,
                Guard.cluster(AclOperation.ALTER),
                "as DescribeLogDirs: on a broker's own port, to that broker");

        forwarded(ApiKeys.SHARE_GROUP_HEARTBEAT,
                Guard.of(ShareGroupHeartbeatRequestData.class, ShareGuards::heartbeat),
                "to the share group's coordinator");
        forwarded(ApiKeys.SHARE_GROUP_DESCRIBE,
                Guard.of(ShareGroupDescribeRequestData.class, ShareGuards::describe),
                "split per coordinator, merged in request order");
        forwarded(ApiKeys.SHARE_FETCH,
                Guard.of(ShareFetchRequestData.class, ShareGuards::fetch),
                "split by partition owner, one share session per broker kept for the "
                + "client's session, acknowledgements to the broker that delivered");
        forwarded(ApiKeys.SHARE_ACKNOWLEDGE,
                Guard.of(ShareAcknowledgeRequestData.class, ShareGuards::acknowledge),
                "split by partition owner, on the client's per-broker share sessions");
        forwarded(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
                Guard.of(DescribeShareGroupOffsetsRequestData.class, ShareOffsetGuards::describe),
                "split per coordinator, merged in request order");
        forwarded(ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
                Guard.of(AlterShareGroupOffsetsRequestData.class, ShareOffsetGuards::alter),
                "to the share group's coordinator");
        forwarded(ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
                Guard.of(DeleteShareGroupOffsetsRequestData.class, ShareOffsetGuards::delete),
                "to the share group's coordinator");
        forwarded(ApiKeys.STREAMS_GROUP_HEARTBEAT,
                Guard.of(StreamsGroupHeartbeatRequestData.class, StreamsGuards::heartbeat),
                "to the streams group's coordinator");
        forwarded(ApiKeys.STREAMS_GROUP_DESCRIBE,
                Guard.of(StreamsGroupDescribeRequestData.class, StreamsGuards::describe),
                "split per coordinator, merged in request order");

        refused("answered UNSUPPORTED_SASL_MECHANISM with no mechanisms, then closed, on a listener without "
                + "SASL; with `KAFSCALE_PROXY_SASL_MECHANISMS` the listener answers it itself (the enabled "
                + "mechanisms) and advertises it", ApiKeys.SASL_HANDSHAKE);
        refused("closed on a listener without SASL; with `KAFSCALE_PROXY_SASL_MECHANISMS` the listener runs the "
                + "exchange itself (never a broker)", ApiKeys.SASL_AUTHENTICATE);
        refused("closed: removed from Kafka, no version exists", ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA,
                ApiKeys.UPDATE_METADATA, ApiKeys.CONTROLLED_SHUTDOWN);
        refused("closed: controller-only (KRaft quorum and broker lifecycle)", ApiKeys.VOTE,
                ApiKeys.BEGIN_QUORUM_EPOCH, ApiKeys.END_QUORUM_EPOCH, ApiKeys.ALTER_PARTITION, ApiKeys.ENVELOPE,
                ApiKeys.FETCH_SNAPSHOT, ApiKeys.BROKER_REGISTRATION, ApiKeys.BROKER_HEARTBEAT,
                ApiKeys.ALLOCATE_PRODUCER_IDS, ApiKeys.CONTROLLER_REGISTRATION, ApiKeys.ASSIGN_REPLICAS_TO_DIRS,
                ApiKeys.UPDATE_RAFT_VOTER);
        refused("closed: broker-to-broker share-group state", ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
                ApiKeys.READ_SHARE_GROUP_STATE, ApiKeys.WRITE_SHARE_GROUP_STATE, ApiKeys.DELETE_SHARE_GROUP_STATE,
                ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY);
        refused("closed: a broker refuses delegation tokens on the unauthenticated connections the proxy "
                + "uses", ApiKeys.CREATE_DELEGATION_TOKEN, ApiKeys.RENEW_DELEGATION_TOKEN,
                ApiKeys.EXPIRE_DELEGATION_TOKEN, ApiKeys.DESCRIBE_DELEGATION_TOKEN);
        refused("closed: a broker ties telemetry to the connection it subscribed on; clients go on "
                + "without it", ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, ApiKeys.PUSH_TELEMETRY);
        refused("closed: quorum membership is changed with --bootstrap-controller, not through brokers",
                ApiKeys.ADD_RAFT_VOTER, ApiKeys.REMOVE_RAFT_VOTER);
        refused("closed: unregistering a broker is an operator's call to the controller "
                + "(kafka-cluster --bootstrap-controller)", ApiKeys.UNREGISTER_BROKER);
        CATALOG = ApiCatalog.of(SPECS);
    }

    private ApiSpecs() {
    }

    /** Every key with its spec. */
    public static ApiCatalog catalog() {
        return CATALOG;
    }

    private static void answeredHere(ApiKeys api, Guard guard, String how) {
        place(new ApiSpec(api, ApiSpec.Serving.ANSWERED_HERE, guard, how));
    }

    private static void forwarded(ApiKeys api, Guard guard, String how) {
        place(new ApiSpec(api, ApiSpec.Serving.FORWARDED, guard, how));
    }

    private static void addressedBrokerOnly(ApiKeys api, Guard guard, String how) {
        place(new ApiSpec(api, ApiSpec.Serving.ADDRESSED_BROKER_ONLY, guard, how));
    }

    private static void refused(String why, ApiKeys... apis) {
        for (ApiKeys api : apis) {
            place(new ApiSpec(api, ApiSpec.Serving.REFUSED, Guard.refusedWhole(), why));
        }
    }

    private static void place(ApiSpec spec) {
        if (SPECS.put(spec.api(), spec) != null) {
            throw new IllegalStateException(spec.api() + " is placed twice");
        }
    }
}
