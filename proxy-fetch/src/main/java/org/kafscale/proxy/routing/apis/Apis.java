package org.kafscale.proxy.routing.apis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
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
import org.apache.kafka.common.message.DescribeQuorumRequestData;
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
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.security.authz.ConfigGuards;
import org.kafscale.proxy.core.security.authz.GroupGuards;
import org.kafscale.proxy.core.security.authz.Guard;
import org.kafscale.proxy.core.security.authz.ShareGuards;
import org.kafscale.proxy.core.security.authz.ShareOffsetGuards;
import org.kafscale.proxy.core.security.authz.StreamsGuards;
import org.kafscale.proxy.core.security.authz.TopicGuards;
import org.kafscale.proxy.core.security.authz.TransactionGuards;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.tenant.AclIsolations;
import org.kafscale.proxy.core.tenant.ClientQuotaIsolations;
import org.kafscale.proxy.core.tenant.ClusterIsolations;
import org.kafscale.proxy.core.tenant.ConfigIsolations;
import org.kafscale.proxy.core.tenant.PartitionIsolations;
import org.kafscale.proxy.core.tenant.RefusedIsolations;
import org.kafscale.proxy.core.tenant.ShareGroupIsolations;
import org.kafscale.proxy.core.tenant.StreamsGroupIsolations;
import org.kafscale.proxy.core.tenant.TopicIsolations;
import org.kafscale.proxy.core.tenant.GroupIsolations;
import org.kafscale.proxy.core.tenant.Isolation;
import org.kafscale.proxy.core.tenant.TransactionIsolations;
import org.kafscale.proxy.routing.coordinator.KeyedApi;
import org.kafscale.proxy.routing.coordinator.KeyedApis;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.engine.PartitionShape;
import org.kafscale.proxy.routing.engine.TopicGroups.Shape;
import org.kafscale.proxy.routing.partition.PartitionApis;

/**
 * Every API key kafka-clients knows, one entry per key holding all the proxy does with it: where
 * it is served (answered here, forwarded, only on a broker's own port) or why it is refused, its
 * route (what it is decoded as and where it goes, with how long a broker may hold it and whether
 * it changes the topology), its authorization {@link Guard}, and its row of the API table of
 * {@code docs/architecture.md}. Core reads the served-where, guard and doc parts through
 * {@link #catalog()}, which the composition hands to the dispatcher, ApiVersions and the
 * authorizer; the router reads the routes through {@link #routeOf}. A new API is one entry here
 * ({@code ApiCatalogTest} fails for a key without one).
 *
 * <p>Refused on purpose, each with its reason below: SASL (never forwarded; on a SASL listener the
 * listener's own gate answers it), inter-broker and controller APIs (but WriteTxnMarkers, which
 * {@code kafka-transactions abort} sends to partition leaders), and client telemetry, which a
 * broker ties to the connection it was subscribed on.
 */
public final class Apis {
    private static final Map<ApiKeys, ApiSpec> SPECS = new EnumMap<>(ApiKeys.class);
    private static final Map<ApiKeys, RouteSpec> ROUTES = new EnumMap<>(ApiKeys.class);

    /**
     * What a key this registry does not route gets: a live broker. The dispatcher refuses such keys
     * first; the key it names is only the spec's label.
     */
    private static final RouteSpec.Opaque ANY_BROKER_BY_DEFAULT = anyBroker(ApiKeys.API_VERSIONS);
    private static final ApiCatalog CATALOG;
    private static final String MERGED_PER_COORDINATOR = "split per coordinator, merged in request order";
    private static final String TO_TRANSACTION_COORDINATOR = "to the transactional id's coordinator";

    static {
        // ---- answered here, from the topology ----
        place(api(ApiKeys.API_VERSIONS).answeredHere()
                .guard(Guard.unchecked())
                .doc("answered here: the versions kafka-clients and every broker support, "
                        + "and the features finalized on every broker")
                .isolation(ClusterIsolations.API_VERSIONS));
        place(api(ApiKeys.METADATA).answeredHere()
                .guard(Guard.of(MetadataRequestData.class, TopicGuards::metadata))
                .doc("answered here from the topology, every node at the proxy's address "
                        + "(single: node 0 leads everything; brokers: the real ids; ports: the real ids, each at its "
                        + "own port)")
                .isolation(TopicIsolations.METADATA));
        place(api(ApiKeys.FIND_COORDINATOR).answeredHere()
                .guard(Guard.of(FindCoordinatorRequestData.class, GroupGuards::findCoordinator))
                .isolation(GroupIsolations.FIND_COORDINATOR)
                .doc("answered here: the coordinator the topology names (an etcd lease, "
                        + "else a broker's own FindCoordinator), at the proxy's address"));
        place(api(ApiKeys.DESCRIBE_CLUSTER).answeredHere()
                .guard(Guard.unchecked())
                .doc("answered here from the topology, like Metadata")
                .isolation(ClusterIsolations.DESCRIBE_CLUSTER));
        place(api(ApiKeys.DESCRIBE_TOPIC_PARTITIONS).answeredHere()
                .guard(Guard.of(DescribeTopicPartitionsRequestData.class, TopicGuards::describeTopicPartitions))
                .doc("answered here from the topology, like Metadata, with its cursor")
                .isolation(TopicIsolations.DESCRIBE_TOPIC_PARTITIONS));

        // ---- split by partition owner ----
        place(api(ApiKeys.PRODUCE)
                .forwarded(typed(ApiKeys.PRODUCE, ProduceRequestData.class, Routes::produce)
                        .asBytesWhen(Routes::produceAsBytes))
                .guard(Guard.of(ProduceRequestData.class, TopicGuards::produce))
                .doc("split by partition owner and merged; acks=0 not awaited; batches with a "
                        + "producer id sent once; led wholly by the connection's broker (ports, brokers modes), "
                        + "forwarded undecoded")
                .isolation(TopicIsolations.PRODUCE));
        place(api(ApiKeys.FETCH)
                .forwarded(typed(ApiKeys.FETCH, FetchRequestData.class, Routes::fetch)
                        .heldFor((holds, q) -> Math.max(0, q.maxWaitMs())))
                .guard(Guard.of(FetchRequestData.class, TopicGuards::fetch))
                .doc("split by partition owner, sessionless, merged within the request's max_bytes; "
                        + "the rack is not forwarded, so the leader serves")
                .isolation(TopicIsolations.FETCH));
        place(api(ApiKeys.SHARE_FETCH)
                .forwarded(typed(ApiKeys.SHARE_FETCH, ShareFetchRequestData.class, Routes::shareFetch)
                        .heldFor((holds, q) -> Math.max(0, q.maxWaitMs())))
                .guard(Guard.of(ShareFetchRequestData.class, ShareGuards::fetch))
                .doc("split by partition owner, one share session per broker kept for the "
                        + "client's session, acknowledgements to the broker that delivered")
                .isolation(ShareGroupIsolations.SHARE_FETCH));
        place(api(ApiKeys.SHARE_ACKNOWLEDGE)
                .forwarded(typed(ApiKeys.SHARE_ACKNOWLEDGE, ShareAcknowledgeRequestData.class, Routes::shareAcknowledge))
                .guard(Guard.of(ShareAcknowledgeRequestData.class, ShareGuards::acknowledge))
                .doc("split by partition owner, on the client's per-broker share sessions")
                .isolation(ShareGroupIsolations.SHARE_ACKNOWLEDGE));
        place(api(ApiKeys.LIST_OFFSETS)
                .forwarded(byPartition(ListOffsetsRequestData.class, PartitionApis.LIST_OFFSETS))
                .guard(Guard.of(ListOffsetsRequestData.class, TopicGuards::listOffsets))
                .doc("split by partition owner and merged")
                .isolation(TopicIsolations.LIST_OFFSETS));
        // The smallest partition API, written whole in its entry (docs/architecture.md, "How to add
        // an API"): how its request lists partitions and is copied with fewer, how its answer lists
        // results, a result's error, the throttle, the result the proxy makes up, the merged answer.
        place(api(ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .forwarded(byPartition(OffsetForLeaderEpochRequestData.class, PartitionShape
                        .of(ApiKeys.OFFSET_FOR_LEADER_EPOCH, OffsetForLeaderEpochRequestData.class,
                                OffsetForLeaderEpochResponseData.class)
                        .parse(OffsetForLeaderEpochResponseData::new)
                        .requestTopics(OffsetForLeaderEpochRequestData::topics, Shape.byName(OffsetForLeaderTopic::topic,
                                OffsetForLeaderTopic::partitions, OffsetForLeaderPartition::partition,
                                name -> new OffsetForLeaderTopic().setTopic(name)))
                        .split((q, topics) -> new OffsetForLeaderEpochRequestData().setReplicaId(q.replicaId())
                                .setTopics(new OffsetForLeaderTopicCollection(topics.iterator())))
                        .answerTopics(OffsetForLeaderEpochResponseData::topics, Shape.byName(
                                OffsetForLeaderTopicResult::topic, OffsetForLeaderTopicResult::partitions,
                                EpochEndOffset::partition, name -> new OffsetForLeaderTopicResult().setTopic(name)))
                        .errorCode(EpochEndOffset::errorCode)
                        .throttle(OffsetForLeaderEpochResponseData::throttleTimeMs)
                        .synthetic((ref, error) -> new EpochEndOffset().setPartition(ref.partition())
                                .setErrorCode(error.code()).setLeaderEpoch(-1).setEndOffset(-1))
                        .merged((topics, throttle) -> new OffsetForLeaderEpochResponseData()
                                .setThrottleTimeMs(throttle)
                                .setTopics(new OffsetForLeaderTopicResultCollection(topics.iterator())))))
                .guard(Guard.of(OffsetForLeaderEpochRequestData.class, TopicGuards::offsetForLeaderEpoch))
                .doc("split by partition owner and merged")
                .isolation(TopicIsolations.OFFSET_FOR_LEADER_EPOCH));
        place(api(ApiKeys.DELETE_RECORDS)
                .forwarded(byPartition(DeleteRecordsRequestData.class, PartitionApis.DELETE_RECORDS))
                .guard(Guard.of(DeleteRecordsRequestData.class, TopicGuards::deleteRecords))
                .doc("split by partition owner and merged")
                .isolation(TopicIsolations.DELETE_RECORDS));
        // On a broker's own port it asks that broker (the Admin's brokerId option: a follower's
        // view); elsewhere each partition's leader.
        place(api(ApiKeys.DESCRIBE_PRODUCERS)
                .forwarded(typed(ApiKeys.DESCRIBE_PRODUCERS, DescribeProducersRequestData.class,
                        (routes, call) -> routes.toAddressedBroker(call.context(), call.request())
                                .orElseGet(() -> routes.byPartition(call, PartitionApis.DESCRIBE_PRODUCERS))))
                .guard(Guard.of(DescribeProducersRequestData.class, TopicGuards::describeProducers))
                .doc("split by partition owner (the leader) and merged; on a connection that addresses one broker "
                        + "(advertise mode ports or sni) to that broker, so the Admin's brokerId option reaches a follower")
                .isolation(PartitionIsolations.DESCRIBE_PRODUCERS));
        // Clients write one producer's marker; several markers (a transaction coordinator's batch)
        // would need a split per marker that no client needs.
        place(api(ApiKeys.WRITE_TXN_MARKERS)
                .forwarded(typed(ApiKeys.WRITE_TXN_MARKERS, WriteTxnMarkersRequestData.class,
                        (routes, call) -> call.body().markers().size() == 1
                                ? routes.byPartition(call, PartitionApis.WRITE_TXN_MARKERS)
                                : Replies.now(call.context().loop(),
                                        Replies.error(call.request(), Errors.INVALID_REQUEST))))
                .guard(Guard.cluster(AclOperation.CLUSTER_ACTION))
                .doc("split by partition owner and merged (Admin.abortTransaction)")
                .isolation(RefusedIsolations.WRITE_TXN_MARKERS));

        // ---- to the coordinator of the group they name ----
        place(api(ApiKeys.JOIN_GROUP)
                .forwarded(toGroup(ApiKeys.JOIN_GROUP, JoinGroupRequestData.class, JoinGroupRequestData::groupId)
                        .heldFor(BrokerHolds::joining))
                .guard(Guard.readGroup(JoinGroupRequestData.class, JoinGroupRequestData::groupId))
                .isolation(GroupIsolations.JOIN_GROUP)
                .doc("to the group's coordinator; may be held for the rebalance timeout"));
        place(api(ApiKeys.SYNC_GROUP)
                .forwarded(toGroup(ApiKeys.SYNC_GROUP, SyncGroupRequestData.class, SyncGroupRequestData::groupId)
                        .heldFor(BrokerHolds::syncing))
                .guard(Guard.readGroup(SyncGroupRequestData.class, SyncGroupRequestData::groupId))
                .isolation(GroupIsolations.SYNC_GROUP)
                .doc("to the group's coordinator; may be held for the rebalance timeout its "
                        + "JoinGroup named"));
        place(api(ApiKeys.HEARTBEAT)
                .forwarded(toGroup(ApiKeys.HEARTBEAT, HeartbeatRequestData.class, HeartbeatRequestData::groupId))
                .guard(Guard.readGroup(HeartbeatRequestData.class, HeartbeatRequestData::groupId))
                .isolation(GroupIsolations.HEARTBEAT)
                .doc("to the group's coordinator"));
        place(api(ApiKeys.LEAVE_GROUP)
                .forwarded(toGroup(ApiKeys.LEAVE_GROUP, LeaveGroupRequestData.class, LeaveGroupRequestData::groupId))
                .guard(Guard.readGroup(LeaveGroupRequestData.class, LeaveGroupRequestData::groupId))
                .isolation(GroupIsolations.LEAVE_GROUP)
                .doc("to the group's coordinator"));
        place(api(ApiKeys.OFFSET_COMMIT)
                .forwarded(toGroup(ApiKeys.OFFSET_COMMIT, OffsetCommitRequestData.class,
                        OffsetCommitRequestData::groupId))
                .guard(Guard.of(OffsetCommitRequestData.class, GroupGuards::offsetCommit))
                .isolation(GroupIsolations.OFFSET_COMMIT)
                .doc("to the group's coordinator"));
        place(api(ApiKeys.TXN_OFFSET_COMMIT)
                .forwarded(toGroup(ApiKeys.TXN_OFFSET_COMMIT, TxnOffsetCommitRequestData.class,
                        TxnOffsetCommitRequestData::groupId))
                .guard(Guard.of(TxnOffsetCommitRequestData.class, TransactionGuards::txnOffsetCommit))
                .isolation(TransactionIsolations.TXN_OFFSET_COMMIT)
                .doc("to the group's coordinator"));
        place(api(ApiKeys.OFFSET_DELETE)
                .forwarded(toGroup(ApiKeys.OFFSET_DELETE, OffsetDeleteRequestData.class,
                        OffsetDeleteRequestData::groupId))
                .guard(Guard.of(OffsetDeleteRequestData.class, GroupGuards::offsetDelete))
                .isolation(GroupIsolations.OFFSET_DELETE)
                .doc("to the group's coordinator"));
        place(api(ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .forwarded(toGroup(ApiKeys.CONSUMER_GROUP_HEARTBEAT, ConsumerGroupHeartbeatRequestData.class,
                        ConsumerGroupHeartbeatRequestData::groupId))
                .guard(Guard.readGroup(ConsumerGroupHeartbeatRequestData.class,
                        ConsumerGroupHeartbeatRequestData::groupId))
                .isolation(GroupIsolations.CONSUMER_GROUP_HEARTBEAT)
                .doc("to the group's coordinator"));
        place(api(ApiKeys.SHARE_GROUP_HEARTBEAT)
                .forwarded(toGroup(ApiKeys.SHARE_GROUP_HEARTBEAT, ShareGroupHeartbeatRequestData.class,
                        ShareGroupHeartbeatRequestData::groupId))
                .guard(Guard.of(ShareGroupHeartbeatRequestData.class, ShareGuards::heartbeat))
                .doc("to the share group's coordinator")
                .isolation(ShareGroupIsolations.SHARE_GROUP_HEARTBEAT));
        place(api(ApiKeys.STREAMS_GROUP_HEARTBEAT)
                .forwarded(toGroup(ApiKeys.STREAMS_GROUP_HEARTBEAT, StreamsGroupHeartbeatRequestData.class,
                        StreamsGroupHeartbeatRequestData::groupId))
                .guard(Guard.of(StreamsGroupHeartbeatRequestData.class, StreamsGuards::heartbeat))
                .doc("to the streams group's coordinator")
                .isolation(StreamsGroupIsolations.STREAMS_GROUP_HEARTBEAT));
        place(api(ApiKeys.ALTER_SHARE_GROUP_OFFSETS)
                .forwarded(toGroup(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, AlterShareGroupOffsetsRequestData.class,
                        AlterShareGroupOffsetsRequestData::groupId))
                .guard(Guard.of(AlterShareGroupOffsetsRequestData.class, ShareOffsetGuards::alter))
                .doc("to the share group's coordinator")
                .isolation(ShareGroupIsolations.ALTER_SHARE_GROUP_OFFSETS));
        place(api(ApiKeys.DELETE_SHARE_GROUP_OFFSETS)
                .forwarded(toGroup(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, DeleteShareGroupOffsetsRequestData.class,
                        DeleteShareGroupOffsetsRequestData::groupId))
                .guard(Guard.of(DeleteShareGroupOffsetsRequestData.class, ShareOffsetGuards::delete))
                .doc("to the share group's coordinator")
                .isolation(ShareGroupIsolations.DELETE_SHARE_GROUP_OFFSETS));
        // v8+ may name several groups; before, one.
        place(api(ApiKeys.OFFSET_FETCH)
                .forwarded(typed(ApiKeys.OFFSET_FETCH, OffsetFetchRequestData.class,
                        (routes, call) -> call.request().apiVersion() >= 8
                                ? routes.byCoordinator(call, KeyedApis.OFFSET_FETCH)
                                : routes.toGroupCoordinator(call, call.body().groupId())))
                .guard(Guard.of(OffsetFetchRequestData.class, GroupGuards::offsetFetch))
                .isolation(GroupIsolations.OFFSET_FETCH)
                .doc("to the group's coordinator; v8+ naming several groups split per "
                        + "coordinator and merged in request order"));

        // ---- split per coordinator of the keys they name, merged in request order ----
        place(api(ApiKeys.DESCRIBE_GROUPS)
                .forwarded(byCoordinator(DescribeGroupsRequestData.class, KeyedApis.DESCRIBE_GROUPS))
                .guard(Guard.of(DescribeGroupsRequestData.class, GroupGuards::describeGroups))
                .isolation(GroupIsolations.DESCRIBE_GROUPS)
                .doc(MERGED_PER_COORDINATOR));
        place(api(ApiKeys.DELETE_GROUPS)
                .forwarded(byCoordinator(DeleteGroupsRequestData.class, KeyedApis.DELETE_GROUPS))
                .guard(Guard.of(DeleteGroupsRequestData.class, GroupGuards::deleteGroups))
                .isolation(GroupIsolations.DELETE_GROUPS)
                .doc(MERGED_PER_COORDINATOR));
        place(api(ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .forwarded(byCoordinator(ConsumerGroupDescribeRequestData.class, KeyedApis.CONSUMER_GROUP_DESCRIBE))
                .guard(Guard.of(ConsumerGroupDescribeRequestData.class, GroupGuards::consumerGroupDescribe))
                .isolation(GroupIsolations.CONSUMER_GROUP_DESCRIBE)
                .doc(MERGED_PER_COORDINATOR));
        place(api(ApiKeys.SHARE_GROUP_DESCRIBE)
                .forwarded(byCoordinator(ShareGroupDescribeRequestData.class, KeyedApis.SHARE_GROUP_DESCRIBE))
                .guard(Guard.of(ShareGroupDescribeRequestData.class, ShareGuards::describe))
                .doc(MERGED_PER_COORDINATOR)
                .isolation(ShareGroupIsolations.SHARE_GROUP_DESCRIBE));
        place(api(ApiKeys.STREAMS_GROUP_DESCRIBE)
                .forwarded(byCoordinator(StreamsGroupDescribeRequestData.class, KeyedApis.STREAMS_GROUP_DESCRIBE))
                .guard(Guard.of(StreamsGroupDescribeRequestData.class, StreamsGuards::describe))
                .doc(MERGED_PER_COORDINATOR)
                .isolation(StreamsGroupIsolations.STREAMS_GROUP_DESCRIBE));
        place(api(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS)
                .forwarded(byCoordinator(DescribeShareGroupOffsetsRequestData.class,
                        KeyedApis.DESCRIBE_SHARE_GROUP_OFFSETS))
                .guard(Guard.of(DescribeShareGroupOffsetsRequestData.class, ShareOffsetGuards::describe))
                .doc(MERGED_PER_COORDINATOR)
                .isolation(ShareGroupIsolations.DESCRIBE_SHARE_GROUP_OFFSETS));
        place(api(ApiKeys.DESCRIBE_TRANSACTIONS)
                .forwarded(byCoordinator(DescribeTransactionsRequestData.class, KeyedApis.DESCRIBE_TRANSACTIONS))
                .guard(Guard.of(DescribeTransactionsRequestData.class, TransactionGuards::describeTransactions))
                .isolation(TransactionIsolations.DESCRIBE_TRANSACTIONS)
                .doc("split per transaction coordinator, merged in request order"));

        // ---- to the coordinator of the transactional id they name ----
        // Without one (an idempotent producer's InitProducerId), any broker.
        place(api(ApiKeys.INIT_PRODUCER_ID)
                .forwarded(toTransaction(ApiKeys.INIT_PRODUCER_ID, InitProducerIdRequestData.class,
                        InitProducerIdRequestData::transactionalId))
                .guard(Guard.of(InitProducerIdRequestData.class, TransactionGuards::initProducerId))
                .isolation(TransactionIsolations.INIT_PRODUCER_ID)
                .doc("to the transactional id's coordinator; without one, any broker"));
        place(api(ApiKeys.ADD_PARTITIONS_TO_TXN)
                .forwarded(toTransaction(ApiKeys.ADD_PARTITIONS_TO_TXN, AddPartitionsToTxnRequestData.class,
                        q -> !q.v3AndBelowTransactionalId().isEmpty() ? q.v3AndBelowTransactionalId()
                                : q.transactions().isEmpty() ? null
                                : q.transactions().iterator().next().transactionalId()))
                .guard(Guard.of(AddPartitionsToTxnRequestData.class, TransactionGuards::addPartitionsToTxn))
                .isolation(TransactionIsolations.ADD_PARTITIONS_TO_TXN)
                .doc(TO_TRANSACTION_COORDINATOR));
        place(api(ApiKeys.ADD_OFFSETS_TO_TXN)
                .forwarded(toTransaction(ApiKeys.ADD_OFFSETS_TO_TXN, AddOffsetsToTxnRequestData.class,
                        AddOffsetsToTxnRequestData::transactionalId))
                .guard(Guard.of(AddOffsetsToTxnRequestData.class, TransactionGuards::addOffsetsToTxn))
                .isolation(TransactionIsolations.ADD_OFFSETS_TO_TXN)
                .doc(TO_TRANSACTION_COORDINATOR));
        place(api(ApiKeys.END_TXN)
                .forwarded(toTransaction(ApiKeys.END_TXN, EndTxnRequestData.class, EndTxnRequestData::transactionalId))
                .guard(Guard.of(EndTxnRequestData.class, TransactionGuards::endTxn))
                .isolation(TransactionIsolations.END_TXN)
                .doc(TO_TRANSACTION_COORDINATOR));

        // ---- admin APIs whose resources or answers are a broker's own ----
        place(api(ApiKeys.LIST_GROUPS)
                .forwarded(typed(ApiKeys.LIST_GROUPS, ListGroupsRequestData.class,
                        (routes, call) -> routes.admin().listGroups(call)))
                .guard(Guard.of(ApiMessage.class, GroupGuards::listGroups))
                .isolation(GroupIsolations.LIST_GROUPS)
                .doc("to every broker, lists merged, each group once"));
        place(api(ApiKeys.LIST_TRANSACTIONS)
                .forwarded(typed(ApiKeys.LIST_TRANSACTIONS, ListTransactionsRequestData.class,
                        (routes, call) -> routes.admin().listTransactions(call)))
                .guard(Guard.of(ApiMessage.class, TransactionGuards::listTransactions))
                .isolation(TransactionIsolations.LIST_TRANSACTIONS)
                .doc("to every broker, lists merged, each transaction once"));
        place(api(ApiKeys.DESCRIBE_CONFIGS)
                .forwarded(typed(ApiKeys.DESCRIBE_CONFIGS, DescribeConfigsRequestData.class,
                        (routes, call) -> routes.admin().describeConfigs(call)))
                .guard(Guard.of(DescribeConfigsRequestData.class, ConfigGuards::describeConfigs))
                .doc("split by resource: BROKER and BROKER_LOGGER to the broker they name, "
                        + "others to any broker; broker addresses in values hidden")
                .isolation(ConfigIsolations.DESCRIBE_CONFIGS));
        place(api(ApiKeys.ALTER_CONFIGS)
                .forwarded(typed(ApiKeys.ALTER_CONFIGS, AlterConfigsRequestData.class,
                        (routes, call) -> routes.admin().alterConfigs(call)))
                .guard(Guard.of(AlterConfigsRequestData.class, ConfigGuards::alterConfigs))
                .doc("split by resource, as DescribeConfigs")
                .isolation(ConfigIsolations.ALTER_CONFIGS));
        place(api(ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .forwarded(typed(ApiKeys.INCREMENTAL_ALTER_CONFIGS, IncrementalAlterConfigsRequestData.class,
                        (routes, call) -> routes.admin().incrementalAlterConfigs(call)))
                .guard(Guard.of(IncrementalAlterConfigsRequestData.class, ConfigGuards::incrementalAlterConfigs))
                .doc("split by resource, as DescribeConfigs")
                .isolation(ConfigIsolations.INCREMENTAL_ALTER_CONFIGS));
        place(api(ApiKeys.DESCRIBE_QUORUM)
                .forwarded(typed(ApiKeys.DESCRIBE_QUORUM, DescribeQuorumRequestData.class, (routes, call) ->
                        routes.admin().describeQuorum(call, routes.toAnyBroker(call.context(), call.request()))))
                .guard(Guard.cluster(AclOperation.DESCRIBE))
                .doc("to any broker; controller endpoints rewritten to the proxy's address")
                .isolation(RefusedIsolations.DESCRIBE_QUORUM));

        // ---- about the broker the connection's port stands for ----
        place(api(ApiKeys.DESCRIBE_LOG_DIRS)
                .onAddressedBrokerOnly(toAddressedBroker(ApiKeys.DESCRIBE_LOG_DIRS))
                .guard(Guard.cluster(AclOperation.DESCRIBE))
                .doc("advertise modes ports and sni only, on a connection that addresses one broker (its port or "
                        + "its name): to that broker (about its disks); elsewhere not advertised and closed, since no "
                        + "connection names a broker")
                .isolation(RefusedIsolations.LOG_DIRS));
        place(api(ApiKeys.ALTER_REPLICA_LOG_DIRS)
                .onAddressedBrokerOnly(toAddressedBroker(ApiKeys.ALTER_REPLICA_LOG_DIRS))
                .guard(Guard.cluster(AclOperation.ALTER))
                .doc("as DescribeLogDirs: on a connection that addresses one broker, to that broker")
                .isolation(RefusedIsolations.LOG_DIRS));

        // ---- any live broker answers them (writes are forwarded to the controller) ----
        place(api(ApiKeys.CREATE_TOPICS)
                .forwarded(anyBroker(ApiKeys.CREATE_TOPICS).changingTopology())
                .guard(Guard.of(CreateTopicsRequestData.class, TopicGuards::createTopics))
                .doc("to any broker (it forwards to the controller); answered once the "
                        + "topology shows the change")
                .isolation(TopicIsolations.CREATE_TOPICS));
        place(api(ApiKeys.DELETE_TOPICS)
                .forwarded(anyBroker(ApiKeys.DELETE_TOPICS).changingTopology())
                .guard(Guard.of(DeleteTopicsRequestData.class, TopicGuards::deleteTopics))
                .doc("to any broker; answered once the topology shows the change")
                .isolation(TopicIsolations.DELETE_TOPICS));
        place(api(ApiKeys.CREATE_PARTITIONS)
                .forwarded(anyBroker(ApiKeys.CREATE_PARTITIONS).changingTopology())
                .guard(Guard.of(CreatePartitionsRequestData.class, TopicGuards::createPartitions))
                .doc("to any broker; answered once the topology shows the change")
                .isolation(TopicIsolations.CREATE_PARTITIONS));
        toAnyBrokerOnCluster(AclOperation.DESCRIBE, AclIsolations.DESCRIBE_ACLS, ApiKeys.DESCRIBE_ACLS);
        toAnyBrokerOnCluster(AclOperation.ALTER, AclIsolations.CREATE_ACLS, ApiKeys.CREATE_ACLS);
        toAnyBrokerOnCluster(AclOperation.ALTER, AclIsolations.DELETE_ACLS, ApiKeys.DELETE_ACLS);
        toAnyBrokerOnCluster(AclOperation.DESCRIBE, RefusedIsolations.SCRAM_CREDENTIALS,
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS);
        toAnyBrokerOnCluster(AclOperation.ALTER, RefusedIsolations.SCRAM_CREDENTIALS,
                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS);
        toAnyBrokerOnCluster(AclOperation.ALTER, RefusedIsolations.UPDATE_FEATURES, ApiKeys.UPDATE_FEATURES);
        place(api(ApiKeys.LIST_PARTITION_REASSIGNMENTS)
                .forwarded(anyBroker(ApiKeys.LIST_PARTITION_REASSIGNMENTS))
                .guard(Guard.cluster(AclOperation.DESCRIBE))
                .doc("to any broker")
                .isolation(PartitionIsolations.LIST_PARTITION_REASSIGNMENTS));
        place(api(ApiKeys.ELECT_LEADERS)
                .forwarded(anyBroker(ApiKeys.ELECT_LEADERS))
                .guard(Guard.cluster(AclOperation.ALTER))
                .doc("to any broker")
                .isolation(PartitionIsolations.ELECT_LEADERS));
        toAnyBrokerOnCluster(AclOperation.DESCRIBE_CONFIGS, ClientQuotaIsolations.DESCRIBE_CLIENT_QUOTAS,
                ApiKeys.DESCRIBE_CLIENT_QUOTAS);
        toAnyBrokerOnCluster(AclOperation.DESCRIBE_CONFIGS, RefusedIsolations.LIST_CONFIG_RESOURCES,
                ApiKeys.LIST_CONFIG_RESOURCES);
        toAnyBrokerOnCluster(AclOperation.ALTER_CONFIGS, ClientQuotaIsolations.ALTER_CLIENT_QUOTAS,
                ApiKeys.ALTER_CLIENT_QUOTAS);
        place(api(ApiKeys.ALTER_PARTITION_REASSIGNMENTS)
                .forwarded(anyBroker(ApiKeys.ALTER_PARTITION_REASSIGNMENTS))
                .guard(Guard.cluster(AclOperation.ALTER))
                .doc("to any broker (real broker ids: see the single-mode limits)")
                .isolation(PartitionIsolations.ALTER_PARTITION_REASSIGNMENTS));

        // ---- refused ----
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

    private Apis() {
    }

    /** Where each key is served, its guard and its doc row: core's view of this registry. */
    public static ApiCatalog catalog() {
        return CATALOG;
    }

    /** The route of {@code api}, or empty for a key the proxy answers itself or refuses. */
    public static Optional<RouteSpec> route(ApiKeys api) {
        return Optional.ofNullable(ROUTES.get(api));
    }

    /** The route of {@code request}'s key; a key not routed (or unknown) goes to a live broker. */
    public static RouteSpec routeOf(RequestFrame request) {
        return request.knownApi().map(ROUTES::get).orElse(ANY_BROKER_BY_DEFAULT);
    }

    /** Every forwarded key with its route. */
    public static Map<ApiKeys, RouteSpec> all() {
        return Collections.unmodifiableMap(ROUTES);
    }

    /** The first step of an entry: the key it is about. */
    static ApiEntry api(ApiKeys api) {
        return new ApiEntry(api);
    }

    private static void place(ApiEntry entry) {
        ApiSpec spec = entry.spec();
        if (SPECS.put(spec.api(), spec) != null) {
            throw new IllegalStateException(spec.api() + " is placed twice");
        }
        entry.route().ifPresent(route -> ROUTES.put(route.api(), route));
    }

    private static void refused(String why, ApiKeys... apis) {
        for (ApiKeys api : apis) {
            place(api(api).refused(why));
        }
    }

    /**
     * An admin API any broker answers, checked as one operation on the cluster, and served to a
     * virtual cluster as {@code isolation} says.
     */
    private static void toAnyBrokerOnCluster(AclOperation operation, Isolation isolation, ApiKeys api) {
        place(api(api).forwarded(anyBroker(api)).guard(Guard.cluster(operation)).doc("to any broker")
                .isolation(isolation));
    }


    private static <Q extends ApiMessage> RouteSpec.Typed<Q> typed(ApiKeys api, Class<Q> body, BodyRoute<Q> route) {
        return new RouteSpec.Typed<>(api, body, Hold.none(), route, null);
    }

    private static <Q extends ApiMessage> RouteSpec.Typed<Q> byPartition(Class<Q> body, PartitionApi<Q, ?, ?, ?> api) {
        return typed(api.api(), body, (routes, call) -> routes.byPartition(call, api));
    }

    private static <Q extends ApiMessage> RouteSpec.Typed<Q> byCoordinator(Class<Q> body, KeyedApi<Q, ?, ?> api) {
        return typed(api.api(), body, (routes, call) -> routes.byCoordinator(call, api));
    }

    private static <Q extends ApiMessage> RouteSpec.Typed<Q> toGroup(ApiKeys api, Class<Q> body,
                                                                     Function<Q, String> group) {
        return typed(api, body, (routes, call) ->
                routes.toGroupCoordinator(call, group.apply(call.body())));
    }

    private static <Q extends ApiMessage> RouteSpec.Typed<Q> toTransaction(ApiKeys api, Class<Q> body,
                                                                           Function<Q, String> transactionalId) {
        return typed(api, body, (routes, call) -> {
            String id = transactionalId.apply(call.body());
            return id == null || id.isEmpty() ? routes.toAnyBroker(call.context(), call.request())
                    : routes.toTransactionCoordinator(call, id);
        });
    }

    /** Served only on a connection that addresses one broker; anywhere else the dispatcher refuses it first. */
    private static RouteSpec.Opaque toAddressedBroker(ApiKeys api) {
        return new RouteSpec.Opaque(api, (routes, context, request) -> routes.toAddressedBroker(context, request)
                .orElseGet(() -> Replies.now(context.loop(),
                        new Reply.Close(request.describe() + " is served only on a broker's own port"))), false);
    }

    private static RouteSpec.Opaque anyBroker(ApiKeys api) {
        return new RouteSpec.Opaque(api, Routes::toAnyBroker, false);
    }
}
