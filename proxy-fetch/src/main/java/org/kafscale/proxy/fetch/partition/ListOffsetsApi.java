package org.kafscale.proxy.fetch.partition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.fetch.routing.PartitionRef;

/** ListOffsets: by topic name; a made-up result has offset, timestamp and leader epoch -1. */
final class ListOffsetsApi implements PartitionApi<ListOffsetsRequestData, ListOffsetsResponseData, ListOffsetsPartitionResponse> {

    @Override
    public List<PartitionRef> partitions(ListOffsetsRequestData request, TopologySnapshot snapshot) {
        List<PartitionRef> refs = new ArrayList<>();
        request.topics().forEach(t -> t.partitions().forEach(p ->
                refs.add(PartitionRef.of(t.name(), null, p.partitionIndex(), snapshot))));
        return refs;
    }

    @Override
    public ListOffsetsRequestData subRequest(ListOffsetsRequestData request, List<PartitionRef> parts) {
        Map<String, ListOffsetsPartition> byKey = new HashMap<>();
        request.topics().forEach(t -> t.partitions().forEach(p ->
                byKey.put(PartitionRef.answerKey(t.name(), null, p.partitionIndex()), p)));
        Map<String, ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (PartitionRef ref : parts) {
            topics.computeIfAbsent(ref.name(), n -> new ListOffsetsTopic().setName(n)).partitions().add(byKey.get(ref.answerKey()));
        }
        return new ListOffsetsRequestData().setReplicaId(request.replicaId()).setIsolationLevel(request.isolationLevel())
                .setTimeoutMs(request.timeoutMs()).setTopics(new ArrayList<>(topics.values()));
    }

    @Override
    public ListOffsetsResponseData parseResponse(ByteBufferAccessor body, short version) {
        return new ListOffsetsResponseData(body, version);
    }

    @Override
    public Map<String, ListOffsetsPartitionResponse> results(ListOffsetsResponseData response) {
        Map<String, ListOffsetsPartitionResponse> results = new HashMap<>();
        response.topics().forEach(t -> t.partitions().forEach(p ->
                results.put(PartitionRef.answerKey(t.name(), null, p.partitionIndex()), p)));
        return results;
    }

    @Override
    public short errorCode(ListOffsetsPartitionResponse result) {
        return result.errorCode();
    }

    @Override
    public int throttleTimeMs(ListOffsetsResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public ListOffsetsPartitionResponse synthetic(PartitionRef ref, Errors error) {
        return new ListOffsetsPartitionResponse().setPartitionIndex(ref.partition()).setErrorCode(error.code())
                .setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
    }

    @Override
    public ListOffsetsResponseData merge(ListOffsetsRequestData request, Map<PartitionRef, ListOffsetsPartitionResponse> results,
                                         int throttleTimeMs) {
        ListOffsetsResponseData response = new ListOffsetsResponseData().setThrottleTimeMs(throttleTimeMs);
        for (ListOffsetsTopic topic : request.topics()) {
            ListOffsetsTopicResponse out = new ListOffsetsTopicResponse().setName(topic.name());
            topic.partitions().forEach(p -> out.partitions().add(results.get(
                    new PartitionRef(topic.name(), null, p.partitionIndex(), null))));
            response.topics().add(out);
        }
        return response;
    }
}
