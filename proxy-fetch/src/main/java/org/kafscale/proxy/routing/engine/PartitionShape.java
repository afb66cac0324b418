package org.kafscale.proxy.routing.engine;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * A partition API that needs nothing but its shape: every decision stays at {@link PartitionApi}'s
 * defaults, those of a read that is safe to repeat. An adapter of a few lines (see
 * {@code PartitionApis}).
 *
 * @param parse the answer's body at the request's version
 * @param topics the request's topics, listed as {@code request} says
 * @param split a copy of the request's top-level fields carrying these topics
 * @param answerTopics an answer's topics, listed as {@code answer} says
 * @param errorCode one result's error
 * @param throttle an answer's throttle time
 * @param synthetic a result the proxy makes up: the error and Kafka's defaults (-1)
 * @param detach a result as it may join another answer (a copy, when it belongs to a keyed collection)
 * @param merged an answer carrying these topics and throttle time
 * @param <Q> the request data, whose topics are {@code T} with partition entries {@code E}
 * @param <R> the response data, whose topics are {@code U} with partition results {@code P}
 */
public record PartitionShape<Q extends ApiMessage, T, E, R extends ApiMessage, U, P>(
        ApiKeys api, BiFunction<ByteBufferAccessor, Short, R> parse,
        Function<Q, Collection<T>> topics, TopicGroups.Shape<T, E> request, BiFunction<Q, List<T>, Q> split,
        Function<R, Collection<U>> answerTopics, TopicGroups.Shape<U, P> answer,
        ToIntFunction<P> errorCode, ToIntFunction<R> throttle, BiFunction<PartitionRef, Errors, P> synthetic,
        UnaryOperator<P> detach, BiFunction<List<U>, Integer, R> merged) implements PartitionApi<Q, E, R, P> {

    @Override
    public Map<PartitionRef, E> partitions(Q data, TopologySnapshot snapshot) {
        return TopicGroups.partitions(topics.apply(data), request, snapshot);
    }

    @Override
    public Q subRequest(Q data, List<PartitionRef> parts, Map<PartitionRef, E> entries) {
        return split.apply(data, TopicGroups.group(parts, entries::get, request));
    }

    @Override
    public R parseResponse(ByteBufferAccessor body, short version) {
        return parse.apply(body, version);
    }

    @Override
    public Map<PartitionRef.AnswerKey, P> results(R response) {
        return TopicGroups.results(answerTopics.apply(response), answer);
    }

    @Override
    public short errorCode(P result) {
        return (short) errorCode.applyAsInt(result);
    }

    @Override
    public int throttleTimeMs(R response) {
        return throttle.applyAsInt(response);
    }

    @Override
    public P synthetic(PartitionRef ref, Errors error) {
        return synthetic.apply(ref, error);
    }

    @Override
    public P accepted(P result) {
        return detach.apply(result);
    }

    @Override
    public R merge(Q data, Map<PartitionRef, E> entries, Map<PartitionRef, P> results, int throttleTimeMs) {
        return merged.apply(TopicGroups.group(entries.keySet(), results::get, answer), throttleTimeMs);
    }
}
