package org.kafscale.proxy.lfs.resolve;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;

/**
 * What one Fetch asked at most: {@code max_bytes} for the answer and {@code partition_max_bytes}
 * per partition it names. A partition of an incremental fetch session the request does not name
 * (the broker remembers it) has no limit of its own here: only the answer's applies to it.
 */
record FetchLimits(int maxBytes, Map<String, Integer> partitionMax) {
    static FetchLimits of(FetchRequestData request) {
        Map<String, Integer> partitions = new HashMap<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                partitions.put(key(topic.topic(), topic.topicId(), partition.partition()),
                        partition.partitionMaxBytes());
            }
        }
        return new FetchLimits(request.maxBytes() <= 0 ? Integer.MAX_VALUE : request.maxBytes(), partitions);
    }

    int partitionMax(String topic, Uuid id, int partition) {
        Integer max = partitionMax.get(key(topic, id, partition));
        return max == null || max <= 0 ? Integer.MAX_VALUE : max;
    }

    /** A request and its answer name a topic the same way: by name, or by id from Fetch v13. */
    private static String key(String topic, Uuid id, int partition) {
        String name = topic == null || topic.isEmpty() ? String.valueOf(id) : topic;
        return name + "-" + partition;
    }
}
