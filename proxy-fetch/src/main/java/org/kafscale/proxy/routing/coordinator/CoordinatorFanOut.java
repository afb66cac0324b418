package org.kafscale.proxy.routing.coordinator;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;

/**
 * Requests that name several groups or transactional ids, whose coordinators may differ (an admin
 * client in single mode sends them all to node 0): the keys are looked up, the request is split
 * per coordinator, each part routed like any coordinator request ({@link CoordinatorRouter}: the
 * NOT_COORDINATOR hop, retries), and the results merged back in request order. When every key has
 * one coordinator the client's own bytes go, and the answer comes back unchanged.
 *
 * <p>A new such API is one {@link KeyedApi} definition and one line in {@link #handle}.
 */
public final class CoordinatorFanOut {
    private static final KeyedApi<OffsetFetchRequestData, OffsetFetchResponseData, OffsetFetchResponseGroup> OFFSET_FETCH =
            new KeyedApi<>(ApiKeys.OFFSET_FETCH, CoordinatorKind.GROUP,
                    q -> q.groups().stream().map(OffsetFetchRequestGroup::groupId).toList(),
                    (q, keys) -> {
                        Set<String> wanted = Set.copyOf(keys);
                        return new OffsetFetchRequestData().setRequireStable(q.requireStable())
                                .setGroups(q.groups().stream().filter(g -> wanted.contains(g.groupId())).toList());
                    },
                    OffsetFetchResponseData::new, OffsetFetchResponseData::groups, OffsetFetchResponseGroup::groupId,
                    OffsetFetchResponseData::throttleTimeMs,
                    (key, error) -> new OffsetFetchResponseGroup().setGroupId(key).setErrorCode(error.code()),
                    (groups, throttle) -> new OffsetFetchResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    private static final KeyedApi<DescribeGroupsRequestData, DescribeGroupsResponseData,
            DescribeGroupsResponseData.DescribedGroup> DESCRIBE_GROUPS =
            new KeyedApi<>(ApiKeys.DESCRIBE_GROUPS, CoordinatorKind.GROUP, DescribeGroupsRequestData::groups,
                    (q, keys) -> new DescribeGroupsRequestData().setGroups(keys)
                            .setIncludeAuthorizedOperations(q.includeAuthorizedOperations()),
                    DescribeGroupsResponseData::new, DescribeGroupsResponseData::groups,
                    DescribeGroupsResponseData.DescribedGroup::groupId, DescribeGroupsResponseData::throttleTimeMs,
                    (key, error) -> new DescribeGroupsResponseData.DescribedGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new DescribeGroupsResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    /** A result belongs to its answer's keyed collection, so each is copied into the merged one. */
    private static final KeyedApi<DeleteGroupsRequestData, DeleteGroupsResponseData, DeletableGroupResult> DELETE_GROUPS =
            new KeyedApi<>(ApiKeys.DELETE_GROUPS, CoordinatorKind.GROUP, DeleteGroupsRequestData::groupsNames,
                    (q, keys) -> new DeleteGroupsRequestData().setGroupsNames(keys),
                    DeleteGroupsResponseData::new, r -> List.copyOf(r.results()), DeletableGroupResult::groupId,
                    DeleteGroupsResponseData::throttleTimeMs,
                    (key, error) -> new DeletableGroupResult().setGroupId(key).setErrorCode(error.code()),
                    (groups, throttle) -> new DeleteGroupsResponseData().setThrottleTimeMs(throttle).setResults(
                            new DeletableGroupResultCollection(groups.stream().map(DeletableGroupResult::duplicate).iterator())));
    private static final KeyedApi<ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData,
            ConsumerGroupDescribeResponseData.DescribedGroup> CONSUMER_GROUP_DESCRIBE =
            new KeyedApi<>(ApiKeys.CONSUMER_GROUP_DESCRIBE, CoordinatorKind.GROUP, ConsumerGroupDescribeRequestData::groupIds,
                    (q, keys) -> new ConsumerGroupDescribeRequestData().setGroupIds(keys)
                            .setIncludeAuthorizedOperations(q.includeAuthorizedOperations()),
                    ConsumerGroupDescribeResponseData::new, ConsumerGroupDescribeResponseData::groups,
                    ConsumerGroupDescribeResponseData.DescribedGroup::groupId, ConsumerGroupDescribeResponseData::throttleTimeMs,
                    (key, error) -> new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new ConsumerGroupDescribeResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    private static final KeyedApi<DescribeTransactionsRequestData, DescribeTransactionsResponseData, TransactionState>
            DESCRIBE_TRANSACTIONS = new KeyedApi<>(ApiKeys.DESCRIBE_TRANSACTIONS, CoordinatorKind.TRANSACTION,
                    DescribeTransactionsRequestData::transactionalIds,
                    (q, keys) -> new DescribeTransactionsRequestData().setTransactionalIds(keys),
                    DescribeTransactionsResponseData::new, DescribeTransactionsResponseData::transactionStates,
                    TransactionState::transactionalId, DescribeTransactionsResponseData::throttleTimeMs,
                    (key, error) -> new TransactionState().setTransactionalId(key).setErrorCode(error.code()),
                    (states, throttle) -> new DescribeTransactionsResponseData().setThrottleTimeMs(throttle)
                            .setTransactionStates(states));
    private static final KeyedApi<ShareGroupDescribeRequestData, ShareGroupDescribeResponseData,
            ShareGroupDescribeResponseData.DescribedGroup> SHARE_GROUP_DESCRIBE =
            new KeyedApi<>(ApiKeys.SHARE_GROUP_DESCRIBE, CoordinatorKind.GROUP, ShareGroupDescribeRequestData::groupIds,
                    (q, keys) -> new ShareGroupDescribeRequestData().setGroupIds(keys)
                            .setIncludeAuthorizedOperations(q.includeAuthorizedOperations()),
                    ShareGroupDescribeResponseData::new, ShareGroupDescribeResponseData::groups,
                    ShareGroupDescribeResponseData.DescribedGroup::groupId, ShareGroupDescribeResponseData::throttleTimeMs,
                    (key, error) -> new ShareGroupDescribeResponseData.DescribedGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new ShareGroupDescribeResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    /** Members' user endpoints are the application's own (application.server), not brokers: left as they are. */
    private static final KeyedApi<StreamsGroupDescribeRequestData, StreamsGroupDescribeResponseData,
            StreamsGroupDescribeResponseData.DescribedGroup> STREAMS_GROUP_DESCRIBE =
            new KeyedApi<>(ApiKeys.STREAMS_GROUP_DESCRIBE, CoordinatorKind.GROUP, StreamsGroupDescribeRequestData::groupIds,
                    (q, keys) -> new StreamsGroupDescribeRequestData().setGroupIds(keys)
                            .setIncludeAuthorizedOperations(q.includeAuthorizedOperations()),
                    StreamsGroupDescribeResponseData::new, StreamsGroupDescribeResponseData::groups,
                    StreamsGroupDescribeResponseData.DescribedGroup::groupId, StreamsGroupDescribeResponseData::throttleTimeMs,
                    (key, error) -> new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new StreamsGroupDescribeResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    private static final KeyedApi<DescribeShareGroupOffsetsRequestData, DescribeShareGroupOffsetsResponseData,
            DescribeShareGroupOffsetsResponseGroup> DESCRIBE_SHARE_GROUP_OFFSETS =
            new KeyedApi<>(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, CoordinatorKind.GROUP,
                    q -> q.groups().stream().map(DescribeShareGroupOffsetsRequestGroup::groupId).toList(),
                    (q, keys) -> {
                        Set<String> wanted = Set.copyOf(keys);
                        return new DescribeShareGroupOffsetsRequestData()
                                .setGroups(q.groups().stream().filter(g -> wanted.contains(g.groupId())).toList());
                    },
                    DescribeShareGroupOffsetsResponseData::new, DescribeShareGroupOffsetsResponseData::groups,
                    DescribeShareGroupOffsetsResponseGroup::groupId, DescribeShareGroupOffsetsResponseData::throttleTimeMs,
                    (key, error) -> new DescribeShareGroupOffsetsResponseGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new DescribeShareGroupOffsetsResponseData().setThrottleTimeMs(throttle)
                            .setGroups(groups));

    private final Topology topology;
    private final CoordinatorRouter router;

    public CoordinatorFanOut(Topology topology, CoordinatorRouter router) {
        this.topology = topology;
        this.router = router;
    }

    /** Routes the request when it is an API that names several keys. */
    public Optional<Future<Reply>> handle(ConnectionContext context, RequestFrame request, ApiMessage body) {
        if (body instanceof OffsetFetchRequestData data && request.apiVersion() >= 8) {
            return Optional.of(route(context, request, data, OFFSET_FETCH));
        }
        if (body instanceof DescribeGroupsRequestData data) {
            return Optional.of(route(context, request, data, DESCRIBE_GROUPS));
        }
        if (body instanceof DeleteGroupsRequestData data) {
            return Optional.of(route(context, request, data, DELETE_GROUPS));
        }
        if (body instanceof ConsumerGroupDescribeRequestData data) {
            return Optional.of(route(context, request, data, CONSUMER_GROUP_DESCRIBE));
        }
        if (body instanceof DescribeTransactionsRequestData data) {
            return Optional.of(route(context, request, data, DESCRIBE_TRANSACTIONS));
        }
        if (body instanceof ShareGroupDescribeRequestData data) {
            return Optional.of(route(context, request, data, SHARE_GROUP_DESCRIBE));
        }
        if (body instanceof StreamsGroupDescribeRequestData data) {
            return Optional.of(route(context, request, data, STREAMS_GROUP_DESCRIBE));
        }
        if (body instanceof DescribeShareGroupOffsetsRequestData data) {
            return Optional.of(route(context, request, data, DESCRIBE_SHARE_GROUP_OFFSETS));
        }
        return Optional.empty();
    }

    private <Q extends ApiMessage, R extends ApiMessage, G> Future<Reply> route(
            ConnectionContext context, RequestFrame request, Q data, KeyedApi<Q, R, G> api) {
        List<String> keys = List.copyOf(new LinkedHashSet<>(api.keys().apply(data)));
        if (keys.size() <= 1) {
            return router.route(context, request, api.kind(), new LinkedHashSet<>(keys));
        }
        Promise<Reply> reply = context.newReply();
        Map<String, CompletableFuture<Integer>> lookups = new LinkedHashMap<>();
        keys.forEach(k -> lookups.put(k, topology.coordinator(api.kind(), k).toCompletableFuture()));
        CompletableFuture.allOf(lookups.values().toArray(CompletableFuture[]::new)).whenComplete((done, error) ->
                context.loop().execute(() -> {
                    try {
                        split(context, request, data, api, lookups, reply);
                    } catch (RuntimeException e) {
                        reply.trySuccess(new Reply.Close("splitting " + request.describe() + " failed: " + e));
                    }
                }));
        return reply;
    }

    private <Q extends ApiMessage, R extends ApiMessage, G> void split(
            ConnectionContext context, RequestFrame request, Q data, KeyedApi<Q, R, G> api,
            Map<String, CompletableFuture<Integer>> lookups, Promise<Reply> reply) {
        Map<Integer, List<String>> byCoordinator = new LinkedHashMap<>();
        lookups.forEach((key, lookup) -> byCoordinator.computeIfAbsent(
                lookup.isCompletedExceptionally() ? -1 : lookup.join(), c -> new ArrayList<>()).add(key));
        if (byCoordinator.size() == 1) {
            // One coordinator after all: the client's bytes, and its answer unchanged.
            router.route(context, request, api.kind(), new LinkedHashSet<>(lookups.keySet()))
                    .addListener(f -> Replies.settle(reply, f.isSuccess() ? (Reply) f.getNow() : new Reply.Close(String.valueOf(f.cause()))));
            return;
        }
        List<Future<Reply>> parts = new ArrayList<>();
        List<List<String>> partKeys = new ArrayList<>(byCoordinator.values());
        for (List<String> part : partKeys) {
            parts.add(router.route(context, request, RequestFrames.reencode(request, api.split().apply(data, part)), api.kind(),
                    new LinkedHashSet<>(part), 0));
        }
        int[] outstanding = {parts.size()};
        parts.forEach(p -> p.addListener(f -> {
            if (--outstanding[0] == 0) {
                try {
                    Replies.settle(reply, merge(request, data, api, parts, partKeys));
                } catch (RuntimeException e) {
                    Replies.settle(reply, new Reply.Close("merging " + request.describe() + " failed: " + e));
                }
            }
        }));
    }

    /** Each key's result from its coordinator's part; the keys of a part that failed carry its error. */
    private static <Q extends ApiMessage, R extends ApiMessage, G> Reply merge(
            RequestFrame request, Q data, KeyedApi<Q, R, G> api, List<Future<Reply>> parts, List<List<String>> partKeys) {
        try {
            Map<String, G> byKey = new HashMap<>();
            int throttle = 0;
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i).getNow() instanceof Reply.Send send) {
                    R response = api.parse().apply(ResponseFrames.body(api.api(), request.apiVersion(), send.frame()),
                            request.apiVersion());
                    throttle = Math.max(throttle, api.throttle().applyAsInt(response));
                    api.results().apply(response).forEach(result -> byKey.put(api.keyOf().apply(result), result));
                }
                for (String key : partKeys.get(i)) {
                    byKey.computeIfAbsent(key, k -> api.failed().apply(k, Errors.COORDINATOR_NOT_AVAILABLE));
                }
            }
            List<G> inRequestOrder = api.keys().apply(data).stream().map(byKey::get).toList();
            return Reply.send(ResponseFrames.encode(api.api(), request.apiVersion(), request.correlationId(),
                    api.merged().apply(inRequestOrder, throttle)));
        } finally {
            parts.forEach(part -> part.getNow().discard());
        }
    }

}
