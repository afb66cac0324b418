package org.kafscale.proxy.fetch.partition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.fetch.routing.PartitionRef;

/** DeleteRecords: by topic name; a made-up result has low watermark -1. */
final class DeleteRecordsApi
        implements PartitionApi<DeleteRecordsRequestData, DeleteRecordsResponseData, DeleteRecordsPartitionResult> {

    @Override
    public List<PartitionRef> partitions(DeleteRecordsRequestData request, TopologySnapshot snapshot) {
        List<PartitionRef> refs = new ArrayList<>();
        request.topics().forEach(t -> t.partitions().forEach(p ->
                refs.add(PartitionRef.of(t.name(), null, p.partitionIndex(), snapshot))));
        return refs;
    }

    @Override
    public DeleteRecordsRequestData subRequest(DeleteRecordsRequestData request, List<PartitionRef> parts) {
        Map<String, DeleteRecordsPartition> byKey = new HashMap<>();
        request.topics().forEach(t -> t.partitions().forEach(p ->
                byKey.put(PartitionRef.answerKey(t.name(), null, p.partitionIndex()), p)));
        Map<String, DeleteRecordsTopic> topics = new LinkedHashMap<>();
        for (PartitionRef ref : parts) {
            topics.computeIfAbsent(ref.name(), n -> new DeleteRecordsTopic().setName(n)).partitions().add(byKey.get(ref.answerKey()));
        }
        return new DeleteRecordsRequestData().setTimeoutMs(request.timeoutMs()).setTopics(new ArrayList<>(topics.values()));
    }

    @Override
    public DeleteRecordsResponseData parseResponse(ByteBufferAccessor body, short version) {
        return new DeleteRecordsResponseData(body, version);
    }

    @Override
    public Map<String, DeleteRecordsPartitionResult> results(DeleteRecordsResponseData response) {
        Map<String, DeleteRecordsPartitionResult> results = new HashMap<>();
        response.topics().forEach(t -> t.partitions().forEach(p ->
                results.put(PartitionRef.answerKey(t.name(), null, p.partitionIndex()), p)));
        return results;
    }

    @Override
    public short errorCode(DeleteRecordsPartitionResult result) {
        return result.errorCode();
    }

    @Override
    public int throttleTimeMs(DeleteRecordsResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public DeleteRecordsPartitionResult synthetic(PartitionRef ref, Errors error) {
        return new DeleteRecordsPartitionResult().setPartitionIndex(ref.partition()).setErrorCode(error.code())
                .setLowWatermark(-1);
    }

    /** Results of parsed answers belong to their answer's collection, so they are copied in. */
    @Override
    public DeleteRecordsResponseData merge(DeleteRecordsRequestData request,
                                           Map<PartitionRef, DeleteRecordsPartitionResult> results, int throttleTimeMs) {
        DeleteRecordsResponseData response = new DeleteRecordsResponseData().setThrottleTimeMs(throttleTimeMs);
        for (DeleteRecordsTopic topic : request.topics()) {
            DeleteRecordsTopicResult out = new DeleteRecordsTopicResult().setName(topic.name());
            topic.partitions().forEach(p -> out.partitions().add(results.get(
                    new PartitionRef(topic.name(), null, p.partitionIndex(), null)).duplicate()));
            response.topics().add(out);
        }
        return response;
    }
}
