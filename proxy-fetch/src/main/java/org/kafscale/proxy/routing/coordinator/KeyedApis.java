package org.kafscale.proxy.routing.coordinator;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.topology.CoordinatorKind;

/**
 * The coordinator APIs whose request may name several groups or transactional ids, each one's
 * {@link KeyedApi}: how {@link CoordinatorFanOut} splits it per coordinator and merges the answers.
 * Their routes, in {@code routing.apis.Apis}, point here.
 */
public final class KeyedApis {
    public static final KeyedApi<OffsetFetchRequestData, OffsetFetchResponseData, OffsetFetchResponseGroup> OFFSET_FETCH =
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
    public static final KeyedApi<DescribeGroupsRequestData, DescribeGroupsResponseData,
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
    public static final KeyedApi<DeleteGroupsRequestData, DeleteGroupsResponseData, DeletableGroupResult> DELETE_GROUPS =
            new KeyedApi<>(ApiKeys.DELETE_GROUPS, CoordinatorKind.GROUP, DeleteGroupsRequestData::groupsNames,
                    (q, keys) -> new DeleteGroupsRequestData().setGroupsNames(keys),
                    DeleteGroupsResponseData::new, r -> List.copyOf(r.results()), DeletableGroupResult::groupId,
                    DeleteGroupsResponseData::throttleTimeMs,
                    (key, error) -> new DeletableGroupResult().setGroupId(key).setErrorCode(error.code()),
                    (groups, throttle) -> new DeleteGroupsResponseData().setThrottleTimeMs(throttle).setResults(
                            new DeletableGroupResultCollection(groups.stream().map(DeletableGroupResult::duplicate).iterator())));
    public static final KeyedApi<ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData,
            ConsumerGroupDescribeResponseData.DescribedGroup> CONSUMER_GROUP_DESCRIBE =
            new KeyedApi<>(ApiKeys.CONSUMER_GROUP_DESCRIBE, CoordinatorKind.GROUP, ConsumerGroupDescribeRequestData::groupIds,
                    (q, keys) -> new ConsumerGroupDescribeRequestData().setGroupIds(keys)
                            .setIncludeAuthorizedOperations(q.includeAuthorizedOperations()),
                    ConsumerGroupDescribeResponseData::new, ConsumerGroupDescribeResponseData::groups,
                    ConsumerGroupDescribeResponseData.DescribedGroup::groupId, ConsumerGroupDescribeResponseData::throttleTimeMs,
                    (key, error) -> new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new ConsumerGroupDescribeResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    public static final KeyedApi<DescribeTransactionsRequestData, DescribeTransactionsResponseData, TransactionState>
            DESCRIBE_TRANSACTIONS = new KeyedApi<>(ApiKeys.DESCRIBE_TRANSACTIONS, CoordinatorKind.TRANSACTION,
                    DescribeTransactionsRequestData::transactionalIds,
                    (q, keys) -> new DescribeTransactionsRequestData().setTransactionalIds(keys),
                    DescribeTransactionsResponseData::new, DescribeTransactionsResponseData::transactionStates,
                    TransactionState::transactionalId, DescribeTransactionsResponseData::throttleTimeMs,
                    (key, error) -> new TransactionState().setTransactionalId(key).setErrorCode(error.code()),
                    (states, throttle) -> new DescribeTransactionsResponseData().setThrottleTimeMs(throttle)
                            .setTransactionStates(states));
    public static final KeyedApi<ShareGroupDescribeRequestData, ShareGroupDescribeResponseData,
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
    public static final KeyedApi<StreamsGroupDescribeRequestData, StreamsGroupDescribeResponseData,
            StreamsGroupDescribeResponseData.DescribedGroup> STREAMS_GROUP_DESCRIBE =
            new KeyedApi<>(ApiKeys.STREAMS_GROUP_DESCRIBE, CoordinatorKind.GROUP, StreamsGroupDescribeRequestData::groupIds,
                    (q, keys) -> new StreamsGroupDescribeRequestData().setGroupIds(keys)
                            .setIncludeAuthorizedOperations(q.includeAuthorizedOperations()),
                    StreamsGroupDescribeResponseData::new, StreamsGroupDescribeResponseData::groups,
                    StreamsGroupDescribeResponseData.DescribedGroup::groupId, StreamsGroupDescribeResponseData::throttleTimeMs,
                    (key, error) -> new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId(key)
                            .setErrorCode(error.code()).setErrorMessage(error.message()),
                    (groups, throttle) -> new StreamsGroupDescribeResponseData().setThrottleTimeMs(throttle).setGroups(groups));
    public static final KeyedApi<DescribeShareGroupOffsetsRequestData, DescribeShareGroupOffsetsResponseData,
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

    private KeyedApis() {
    }
}
