package org.kafscale.proxy.routing.apis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
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
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.routing.coordinator.KeyedApi;
import org.kafscale.proxy.routing.coordinator.KeyedApis;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.partition.PartitionApis;

/**
 * The route of every API the proxy forwards, one entry per key: what it is decoded as, where it
 * goes, how long a broker may hold it, whether it changes the topology. The keys the proxy answers
 * itself or refuses are not here: {@code core.apis.ApiCatalog} says where each key is served (and
 * a test holds the two to each other), which keeps the dispatcher, ApiVersions and the authorizer
 * free of routing.
 *
 * <p>A new forwarded API is one entry here (plus, for a partition or multi-key API, its shape next
 * to the others: {@link PartitionApis}, {@link KeyedApis}).
 */
public final class Apis {
    private static final Map<ApiKeys, RouteSpec> ROUTES = new EnumMap<>(ApiKeys.class);

    /**
     * What a key this registry does not list gets: a live broker. The dispatcher refuses such keys
     * first; the key it names is only the spec's label.
     */
    private static final RouteSpec.Opaque ANY_BROKER_BY_DEFAULT = anyBroker(ApiKeys.API_VERSIONS);

    static {
        // ---- split by partition owner ----
        add(typed(ApiKeys.PRODUCE, ProduceRequestData.class, Routes::produce));
        add(typed(ApiKeys.FETCH, FetchRequestData.class, Routes::fetch)
                .heldFor((holds, q) -> Math.max(0, q.maxWaitMs())));
        add(typed(ApiKeys.SHARE_FETCH, ShareFetchRequestData.class, Routes::shareFetch)
                .heldFor((holds, q) -> Math.max(0, q.maxWaitMs())));
        add(typed(ApiKeys.SHARE_ACKNOWLEDGE, ShareAcknowledgeRequestData.class, Routes::shareAcknowledge));
        add(byPartition(ListOffsetsRequestData.class, PartitionApis.LIST_OFFSETS));
        add(byPartition(OffsetForLeaderEpochRequestData.class, PartitionApis.OFFSET_FOR_LEADER_EPOCH));
        add(byPartition(DeleteRecordsRequestData.class, PartitionApis.DELETE_RECORDS));
        // On a broker's own port it asks that broker (the Admin's brokerId option: a follower's
        // view); elsewhere each partition's leader.
        add(typed(ApiKeys.DESCRIBE_PRODUCERS, DescribeProducersRequestData.class,
                (routes, call) -> routes.toAddressedBroker(call.context(), call.request())
                        .orElseGet(() -> routes.byPartition(call, PartitionApis.DESCRIBE_PRODUCERS))));
        // Clients write one producer's marker; several markers (a transaction coordinator's batch)
        // would need a split per marker that no client needs.
        add(typed(ApiKeys.WRITE_TXN_MARKERS, WriteTxnMarkersRequestData.class,
                (routes, call) -> call.body().markers().size() == 1
                        ? routes.byPartition(call, PartitionApis.WRITE_TXN_MARKERS)
                        : Replies.now(call.context().loop(), Replies.error(call.request(), Errors.INVALID_REQUEST))));

        // ---- to the coordinator of the group they name ----
        add(toGroup(ApiKeys.JOIN_GROUP, JoinGroupRequestData.class, JoinGroupRequestData::groupId)
                .heldFor(BrokerHolds::joining));
        add(toGroup(ApiKeys.SYNC_GROUP, SyncGroupRequestData.class, SyncGroupRequestData::groupId)
                .heldFor(BrokerHolds::syncing));
        add(toGroup(ApiKeys.HEARTBEAT, HeartbeatRequestData.class, HeartbeatRequestData::groupId));
        add(toGroup(ApiKeys.LEAVE_GROUP, LeaveGroupRequestData.class, LeaveGroupRequestData::groupId));
        add(toGroup(ApiKeys.OFFSET_COMMIT, OffsetCommitRequestData.class, OffsetCommitRequestData::groupId));
        add(toGroup(ApiKeys.TXN_OFFSET_COMMIT, TxnOffsetCommitRequestData.class, TxnOffsetCommitRequestData::groupId));
        add(toGroup(ApiKeys.OFFSET_DELETE, OffsetDeleteRequestData.class, OffsetDeleteRequestData::groupId));
        add(toGroup(ApiKeys.CONSUMER_GROUP_HEARTBEAT, ConsumerGroupHeartbeatRequestData.class,
                ConsumerGroupHeartbeatRequestData::groupId));
        add(toGroup(ApiKeys.SHARE_GROUP_HEARTBEAT, ShareGroupHeartbeatRequestData.class,
                ShareGroupHeartbeatRequestData::groupId));
        add(toGroup(ApiKeys.STREAMS_GROUP_HEARTBEAT, StreamsGroupHeartbeatRequestData.class,
                StreamsGroupHeartbeatRequestData::groupId));
        add(toGroup(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, AlterShareGroupOffsetsRequestData.class,
                AlterShareGroupOffsetsRequestData::groupId));
        add(toGroup(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, DeleteShareGroupOffsetsRequestData.class,
                DeleteShareGroupOffsetsRequestData::groupId));
        // v8+ may name several groups; before, one.
        add(typed(ApiKeys.OFFSET_FETCH, OffsetFetchRequestData.class, (routes, call) -> call.request().apiVersion() >= 8
                ? routes.byCoordinator(call, KeyedApis.OFFSET_FETCH)
                : routes.toGroupCoordinator(call, call.body().groupId())));

        // ---- split per coordinator of the keys they name, merged in request order ----
        add(byCoordinator(DescribeGroupsRequestData.class, KeyedApis.DESCRIBE_GROUPS));
        add(byCoordinator(DeleteGroupsRequestData.class, KeyedApis.DELETE_GROUPS));
        add(byCoordinator(ConsumerGroupDescribeRequestData.class, KeyedApis.CONSUMER_GROUP_DESCRIBE));
        add(byCoordinator(ShareGroupDescribeRequestData.class, KeyedApis.SHARE_GROUP_DESCRIBE));
        add(byCoordinator(StreamsGroupDescribeRequestData.class, KeyedApis.STREAMS_GROUP_DESCRIBE));
        add(byCoordinator(DescribeShareGroupOffsetsRequestData.class, KeyedApis.DESCRIBE_SHARE_GROUP_OFFSETS));
        add(byCoordinator(DescribeTransactionsRequestData.class, KeyedApis.DESCRIBE_TRANSACTIONS));

        // ---- to the coordinator of the transactional id they name ----
        // Without one (an idempotent producer's InitProducerId), any broker.
        add(toTransaction(ApiKeys.INIT_PRODUCER_ID, InitProducerIdRequestData.class,
                InitProducerIdRequestData::transactionalId));
        add(toTransaction(ApiKeys.ADD_PARTITIONS_TO_TXN, AddPartitionsToTxnRequestData.class,
                q -> !q.v3AndBelowTransactionalId().isEmpty() ? q.v3AndBelowTransactionalId()
                        : q.transactions().isEmpty() ? null : q.transactions().iterator().next().transactionalId()));
        add(toTransaction(ApiKeys.ADD_OFFSETS_TO_TXN, AddOffsetsToTxnRequestData.class,
                AddOffsetsToTxnRequestData::transactionalId));
        add(toTransaction(ApiKeys.END_TXN, EndTxnRequestData.class, EndTxnRequestData::transactionalId));

        // ---- admin APIs whose resources or answers are a broker's own ----
        add(typed(ApiKeys.LIST_GROUPS, ListGroupsRequestData.class, (routes, call) -> routes.admin().listGroups(call)));
        add(typed(ApiKeys.LIST_TRANSACTIONS, ListTransactionsRequestData.class,
                (routes, call) -> routes.admin().listTransactions(call)));
        add(typed(ApiKeys.DESCRIBE_CONFIGS, DescribeConfigsRequestData.class,
                (routes, call) -> routes.admin().describeConfigs(call)));
        add(typed(ApiKeys.ALTER_CONFIGS, AlterConfigsRequestData.class,
                (routes, call) -> routes.admin().alterConfigs(call)));
        add(typed(ApiKeys.INCREMENTAL_ALTER_CONFIGS, IncrementalAlterConfigsRequestData.class,
                (routes, call) -> routes.admin().incrementalAlterConfigs(call)));
        add(typed(ApiKeys.DESCRIBE_QUORUM, DescribeQuorumRequestData.class, (routes, call) ->
                routes.admin().describeQuorum(call, routes.toAnyBroker(call.context(), call.request()))));

        // ---- about the broker the connection's port stands for ----
        add(toAddressedBroker(ApiKeys.DESCRIBE_LOG_DIRS));
        add(toAddressedBroker(ApiKeys.ALTER_REPLICA_LOG_DIRS));

        // ---- any live broker answers them (writes are forwarded to the controller) ----
        add(anyBroker(ApiKeys.CREATE_TOPICS).changingTopology());
        add(anyBroker(ApiKeys.DELETE_TOPICS).changingTopology());
        add(anyBroker(ApiKeys.CREATE_PARTITIONS).changingTopology());
        for (ApiKeys api : new ApiKeys[] {ApiKeys.DESCRIBE_ACLS, ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS,
                ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.ELECT_LEADERS,
                ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                ApiKeys.UPDATE_FEATURES, ApiKeys.LIST_CONFIG_RESOURCES}) {
            add(anyBroker(api));
        }
    }

    private Apis() {
    }

    /** The route of {@code api}, or empty for a key the proxy answers itself or refuses. */
    public static Optional<RouteSpec> route(ApiKeys api) {
        return Optional.ofNullable(ROUTES.get(api));
    }

    /** The route of {@code request}'s key; a key not listed (or unknown) goes to a live broker. */
    public static RouteSpec routeOf(RequestFrame request) {
        return request.knownApi().map(ROUTES::get).orElse(ANY_BROKER_BY_DEFAULT);
    }

    /** Every forwarded key with its route. */
    public static Map<ApiKeys, RouteSpec> all() {
        return Collections.unmodifiableMap(ROUTES);
    }

    private static void add(RouteSpec spec) {
        if (ROUTES.put(spec.api(), spec) != null) {
            throw new IllegalStateException(spec.api() + " has two routes");
        }
    }

    private static <Q extends ApiMessage> RouteSpec.Typed<Q> typed(ApiKeys api, Class<Q> body, BodyRoute<Q> route) {
        return new RouteSpec.Typed<>(api, body, Hold.none(), route);
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
