package org.kafscale.proxy.routing.coordinator;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.CoordinatorKind;

/**
 * A coordinator API whose request may name several groups or transactional ids, each answered by
 * its own coordinator (DescribeGroups, DeleteGroups, OffsetFetch v8+, ...), in the terms of
 * kafka-clients' generated classes: what {@link CoordinatorFanOut} needs to split it by key and
 * merge it back.
 *
 * @param keys the keys the request names, in request order
 * @param split a copy of the request's top-level fields naming only the given keys
 * @param parse a part's answer at the request's version
 * @param results a part's results
 * @param keyOf the key a result is for
 * @param throttle a part's throttle time
 * @param failed the result the proxy makes up for a key whose part failed
 * @param merged the answer carrying these results (in request order) and throttle time
 * @param <Q> the request data
 * @param <R> the response data
 * @param <G> one key's result
 */
public record KeyedApi<Q extends ApiMessage, R extends ApiMessage, G>(
        ApiKeys api, CoordinatorKind kind, Function<Q, List<String>> keys, BiFunction<Q, List<String>, Q> split,
        BiFunction<ByteBufferAccessor, Short, R> parse, Function<R, List<G>> results, Function<G, String> keyOf,
        ToIntFunction<R> throttle, BiFunction<String, Errors, G> failed, BiFunction<List<G>, Integer, R> merged) {
}
