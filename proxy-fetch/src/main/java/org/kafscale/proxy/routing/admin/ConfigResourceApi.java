package org.kafscale.proxy.routing.admin;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;

/**
 * A config API whose request names several config resources, each of which some broker must
 * answer (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs), in the terms of kafka-clients'
 * generated classes: what {@link ConfigResourceRoute} needs to split it per broker and merge it back.
 *
 * @param resources the resources the request names, in request order
 * @param resourceOf a requested resource's type and name
 * @param split a copy of the request's top-level fields naming only the given resources
 * @param parse a part's answer at the request's version
 * @param results a part's results
 * @param resultOf the resource a result is for
 * @param throttle a part's throttle time
 * @param failed the result the proxy makes up for a resource: the error and its message
 * @param merged the answer carrying these results (in request order) and throttle time
 * @param <Q> the request data
 * @param <S> one requested resource
 * @param <R> the response data
 * @param <G> one resource's result
 */
record ConfigResourceApi<Q extends ApiMessage, S, R extends ApiMessage, G>(
        ApiKeys api, Function<Q, List<S>> resources, Function<S, ConfigResourceKey> resourceOf,
        BiFunction<Q, List<S>, Q> split, BiFunction<ByteBufferAccessor, Short, R> parse, Function<R, List<G>> results,
        Function<G, ConfigResourceKey> resultOf, ToIntFunction<R> throttle,
        Function3<S, Errors, String, G> failed, BiFunction<List<G>, Integer, R> merged) {

    /** A function of three arguments. */
    @FunctionalInterface
    interface Function3<A, B, C, T> {
        T apply(A a, B b, C c);
    }
}
