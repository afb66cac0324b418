package org.kafscale.proxy.routing.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Between the per-topic lists of Kafka's generated messages and the flat maps the engine works on:
 * the same three moves for every partition API, written once.
 */
public final class TopicGroups {
    private TopicGroups() {
    }

    /**
     * How a message lists its partitions: topics, each with a name (and maybe an id) and partitions.
     *
     * @param newTopic an empty topic as a request or answer names it
     */
    public record Shape<T, X>(Function<T, String> name, Function<T, Uuid> id, Function<T, Collection<X>> partitions,
                              ToIntFunction<X> index, Function<PartitionRef.TopicRef, T> newTopic) {
        /** Topics named by name only (the APIs before topic ids). */
        public static <T, X> Shape<T, X> byName(Function<T, String> name, Function<T, Collection<X>> partitions,
                                                ToIntFunction<X> index, Function<String, T> newTopic) {
            return new Shape<>(name, t -> null, partitions, index, t -> newTopic.apply(t.wireName()));
        }
    }

    /** Every partition of a request, in request order, keyed as the request names it. */
    public static <T, X> Map<PartitionRef, X> partitions(Collection<T> topics, Shape<T, X> shape,
                                                        TopologySnapshot snapshot) {
        Map<PartitionRef, X> partitions = new LinkedHashMap<>();
        for (T topic : topics) {
            for (X p : shape.partitions().apply(topic)) {
                partitions.put(PartitionRef.of(shape.name().apply(topic), shape.id().apply(topic),
                        shape.index().applyAsInt(p), snapshot), p);
            }
        }
        return partitions;
    }

    /** One answer's partition results by {@link PartitionRef#answerKey()}. */
    public static <T, X> Map<PartitionRef.AnswerKey, X> results(Collection<T> topics, Shape<T, X> shape) {
        Map<PartitionRef.AnswerKey, X> results = new HashMap<>();
        for (T topic : topics) {
            for (X p : shape.partitions().apply(topic)) {
                results.put(PartitionRef.answerKey(shape.name().apply(topic), shape.id().apply(topic),
                        shape.index().applyAsInt(p)), p);
            }
        }
        return results;
    }

    /**
     * Partitions put back under their topics, each topic once in the order it first appears.
     *
     * @param valueOf the partition's entry or result
     */
    public static <T, X> List<T> group(Collection<PartitionRef> refs, Function<PartitionRef, X> valueOf, Shape<T, X> shape) {
        Map<PartitionRef.TopicRef, T> topics = new LinkedHashMap<>();
        for (PartitionRef ref : refs) {
            shape.partitions().apply(topics.computeIfAbsent(ref.topic(), shape.newTopic())).add(valueOf.apply(ref));
        }
        return new ArrayList<>(topics.values());
    }
}
