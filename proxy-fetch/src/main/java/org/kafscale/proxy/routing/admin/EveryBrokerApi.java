package org.kafscale.proxy.routing.admin;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData.TransactionState;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * A listing each broker answers with its own part (the groups or transactions it coordinates), as
 * {@link EveryBrokerFanOut} needs to know it: how to read an answer and how answers merge.
 *
 * @param parse an answer at the request's version
 * @param items an answer's items
 * @param keyOf what makes an item the same item in two answers
 * @param errorCode an answer's top-level error
 * @param throttle an answer's throttle time
 * @param merged the answer carrying these items (each once), this error and throttle time, made
 *               from every broker's answer (for the fields the items do not carry)
 * @param <R> the response data
 * @param <I> one listed item
 */
record EveryBrokerApi<R extends ApiMessage, I>(
        ApiKeys api, BiFunction<ByteBufferAccessor, Short, R> parse, Function<R, List<I>> items, Function<I, String> keyOf,
        ToIntFunction<R> errorCode, ToIntFunction<R> throttle, Merged<R, I> merged) {

    /** The merged answer. */
    @FunctionalInterface
    interface Merged<R, I> {
        R of(List<I> items, short errorCode, int throttleTimeMs, List<R> answers);
    }

    static final EveryBrokerApi<ListGroupsResponseData, ListedGroup> LIST_GROUPS = new EveryBrokerApi<>(
            ApiKeys.LIST_GROUPS, ListGroupsResponseData::new, ListGroupsResponseData::groups, ListedGroup::groupId,
            ListGroupsResponseData::errorCode, ListGroupsResponseData::throttleTimeMs,
            (groups, error, throttle, answers) -> new ListGroupsResponseData().setErrorCode(error)
                    .setThrottleTimeMs(throttle).setGroups(groups));

    /** Every broker knows the same state names, but the union says it right if versions differ. */
    static final EveryBrokerApi<ListTransactionsResponseData, TransactionState> LIST_TRANSACTIONS = new EveryBrokerApi<>(
            ApiKeys.LIST_TRANSACTIONS, ListTransactionsResponseData::new, ListTransactionsResponseData::transactionStates,
            TransactionState::transactionalId, ListTransactionsResponseData::errorCode,
            ListTransactionsResponseData::throttleTimeMs,
            (states, error, throttle, answers) -> new ListTransactionsResponseData().setErrorCode(error)
                    .setThrottleTimeMs(throttle).setTransactionStates(states)
                    .setUnknownStateFilters(answers.stream().flatMap(a -> a.unknownStateFilters().stream()).distinct().toList()));
}
