package org.kafscale.proxy.core.topology;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * A topic's name, id and partitions.
 *
 * @param name the topic name
 * @param id the topic id ({@link Uuid#ZERO_UUID} when unknown)
 * @param internal whether Kafka marks the topic internal
 * @param partitions partitions by index, in index order
 */
public record TopicLayout(String name, Uuid id, boolean internal, SortedMap<Integer, PartitionLayout> partitions) {
    public TopicLayout {
        partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
    }

    public static TopicLayout of(String name, Uuid id, boolean internal, Map<Integer, PartitionLayout> partitions) {
        return new TopicLayout(name, id, internal, new TreeMap<>(partitions));
    }

}
