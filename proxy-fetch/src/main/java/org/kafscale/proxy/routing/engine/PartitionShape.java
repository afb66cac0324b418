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
 * defaults, those of a read that is safe to repeat. Built by name, not position (see
 * {@code PartitionApis}):
 *
 * <pre>{@code
 * PartitionShape.of(ApiKeys.DELETE_RECORDS, DeleteRecordsRequestData.class, DeleteRecordsResponseData.class)
 *         .parse(DeleteRecordsResponseData::new)
 *         .requestTopics(DeleteRecordsRequestData::topics, Shape.byName(...))
 *         .split((q, topics) -> new DeleteRecordsRequestData().setTimeoutMs(q.timeoutMs()).setTopics(topics))
 *         .answerTopics(DeleteRecordsResponseData::topics, Shape.byName(...))
 *         .errorCode(DeleteRecordsPartitionResult::errorCode)
 *         .throttle(DeleteRecordsResponseData::throttleTimeMs)
 *         .synthetic((ref, error) -> ...)
 *         .merged((topics, throttle) -> ...);
 * }</pre>
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

    /**
     * Starts a shape for {@code api}, whose request and response data are {@code request} and
     * {@code response} (named so the steps after can infer their types).
     */
    public static <Q extends ApiMessage, R extends ApiMessage> Parse<Q, R> of(ApiKeys api, Class<Q> request,
                                                                             Class<R> response) {
        return parse -> new RequestTopics<>(api, parse);
    }

    /** The step that says how an answer's body is read. */
    @FunctionalInterface
    public interface Parse<Q extends ApiMessage, R extends ApiMessage> {
        /** @param parse the answer's body at the request's version (the response data's reading constructor) */
        RequestTopics<Q, R> parse(BiFunction<ByteBufferAccessor, Short, R> parse);
    }

    /** The step that says how the request lists its topics and partitions. */
    public static final class RequestTopics<Q extends ApiMessage, R extends ApiMessage> {
        private final ApiKeys api;
        private final BiFunction<ByteBufferAccessor, Short, R> parse;

        private RequestTopics(ApiKeys api, BiFunction<ByteBufferAccessor, Short, R> parse) {
            this.api = api;
            this.parse = parse;
        }

        /** @param topics the request's topics, each listing its partition entries as {@code shape} says */
        public <T, E> Split<Q, T, E, R> requestTopics(Function<Q, Collection<T>> topics, TopicGroups.Shape<T, E> shape) {
            return split -> new AnswerTopics<>(this, topics, shape, split);
        }
    }

    /** The step that says how a part of the request is made. */
    @FunctionalInterface
    public interface Split<Q extends ApiMessage, T, E, R extends ApiMessage> {
        /** @param split a copy of the request's top-level fields carrying these topics */
        AnswerTopics<Q, T, E, R> split(BiFunction<Q, List<T>, Q> split);
    }

    /** The step that says how an answer lists its topics and partition results. */
    public static final class AnswerTopics<Q extends ApiMessage, T, E, R extends ApiMessage> {
        private final RequestTopics<Q, R> start;
        private final Function<Q, Collection<T>> topics;
        private final TopicGroups.Shape<T, E> request;
        private final BiFunction<Q, List<T>, Q> split;

        private AnswerTopics(RequestTopics<Q, R> start, Function<Q, Collection<T>> topics,
                             TopicGroups.Shape<T, E> request, BiFunction<Q, List<T>, Q> split) {
            this.start = start;
            this.topics = topics;
            this.request = request;
            this.split = split;
        }

        /** @param answerTopics an answer's topics, each listing its partition results as {@code shape} says */
        public <U, P> Results<Q, T, E, R, U, P> answerTopics(Function<R, Collection<U>> answerTopics,
                                                             TopicGroups.Shape<U, P> shape) {
            return new Results<>(this, answerTopics, shape);
        }
    }

    /**
     * The last steps: what a result says and how the proxy makes one up; {@link #merged} ends the
     * shape. {@link #detach} is the only optional one.
     */
    public static final class Results<Q extends ApiMessage, T, E, R extends ApiMessage, U, P> {
        private final AnswerTopics<Q, T, E, R> request;
        private final Function<R, Collection<U>> answerTopics;
        private final TopicGroups.Shape<U, P> answer;
        private ToIntFunction<P> errorCode;
        private ToIntFunction<R> throttle;
        private BiFunction<PartitionRef, Errors, P> synthetic;
        private UnaryOperator<P> detach = UnaryOperator.identity();

        private Results(AnswerTopics<Q, T, E, R> request, Function<R, Collection<U>> answerTopics,
                        TopicGroups.Shape<U, P> answer) {
            this.request = request;
            this.answerTopics = answerTopics;
            this.answer = answer;
        }

        /** @param errorCode one result's error */
        public Results<Q, T, E, R, U, P> errorCode(ToIntFunction<P> errorCode) {
            this.errorCode = errorCode;
            return this;
        }

        /** @param throttle an answer's throttle time */
        public Results<Q, T, E, R, U, P> throttle(ToIntFunction<R> throttle) {
            this.throttle = throttle;
            return this;
        }

        /** @param synthetic a result the proxy makes up: the error and Kafka's defaults (-1) */
        public Results<Q, T, E, R, U, P> synthetic(BiFunction<PartitionRef, Errors, P> synthetic) {
            this.synthetic = synthetic;
            return this;
        }

        /**
         * @param detach a result as it may join another answer: a copy, when it belongs to a keyed
         *               collection (by default the result itself)
         */
        public Results<Q, T, E, R, U, P> detach(UnaryOperator<P> detach) {
            this.detach = detach;
            return this;
        }

        /** @param merged an answer carrying these topics and throttle time */
        public PartitionShape<Q, T, E, R, U, P> merged(BiFunction<List<U>, Integer, R> merged) {
            RequestTopics<Q, R> start = request.start;
            if (errorCode == null || throttle == null || synthetic == null) {
                throw new IllegalStateException(start.api + " shape lacks its errorCode, throttle or synthetic step");
            }
            return new PartitionShape<>(start.api, start.parse, request.topics, request.request, request.split,
                    answerTopics, answer, errorCode, throttle, synthetic, detach, merged);
        }
    }
}
