package org.kafscale.proxy.routing;

import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/** ListOffsets requests and answers for routing tests, in kafka-clients' generated classes (topics by name). */
public final class ListOffsets {
    public static final short VERSION = 9;

    private ListOffsets() {
    }

    /** A consumer asking for the latest offset of one partition. */
    public static ListOffsetsRequestData latest(String topic, int partition) {
        return new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsTopic().setName(topic)
                .setPartitions(List.of(new ListOffsetsPartition().setPartitionIndex(partition)
                        .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)))));
    }

    /** The answer a broker gives {@code request}: each partition's result from {@code result}, in request order. */
    public static ListOffsetsResponseData answer(ListOffsetsRequestData request,
                                                 Function<ListOffsetsPartition, ListOffsetsPartitionResponse> result) {
        ListOffsetsResponseData answer = new ListOffsetsResponseData();
        for (ListOffsetsTopic topic : request.topics()) {
            ListOffsetsTopicResponse answered = new ListOffsetsTopicResponse().setName(topic.name());
            topic.partitions().forEach(p -> answered.partitions().add(result.apply(p).setPartitionIndex(p.partitionIndex())));
            answer.topics().add(answered);
        }
        return answer;
    }

    /** The only partition result of an answer to {@link #latest}. */
    public static ListOffsetsPartitionResponse only(ListOffsetsResponseData answer) {
        return answer.topics().get(0).partitions().get(0);
    }
}
