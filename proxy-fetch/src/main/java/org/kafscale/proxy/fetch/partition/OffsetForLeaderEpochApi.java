package org.kafscale.proxy.fetch.partition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.fetch.routing.PartitionRef;

/** OffsetForLeaderEpoch: by topic name; a made-up result has leader epoch and end offset -1. */
final class OffsetForLeaderEpochApi
        implements PartitionApi<OffsetForLeaderEpochRequestData, OffsetForLeaderEpochResponseData, EpochEndOffset> {

    @Override
    public List<PartitionRef> partitions(OffsetForLeaderEpochRequestData request, TopologySnapshot snapshot) {
        List<PartitionRef> refs = new ArrayList<>();
        request.topics().forEach(t -> t.partitions().forEach(p ->
                refs.add(PartitionRef.of(t.topic(), null, p.partition(), snapshot))));
        return refs;
    }

    @Override
    public OffsetForLeaderEpochRequestData subRequest(OffsetForLeaderEpochRequestData request, List<PartitionRef> parts) {
        Map<String, OffsetForLeaderPartition> byKey = new HashMap<>();
        request.topics().forEach(t -> t.partitions().forEach(p ->
                byKey.put(PartitionRef.answerKey(t.topic(), null, p.partition()), p)));
        OffsetForLeaderEpochRequestData sub = new OffsetForLeaderEpochRequestData().setReplicaId(request.replicaId());
        for (PartitionRef ref : parts) {
            OffsetForLeaderTopic topic = sub.topics().find(ref.name());
            if (topic == null) {
                topic = new OffsetForLeaderTopic().setTopic(ref.name());
                sub.topics().add(topic);
            }
            topic.partitions().add(byKey.get(ref.answerKey()));
        }
        return sub;
    }

    @Override
    public OffsetForLeaderEpochResponseData parseResponse(ByteBufferAccessor body, short version) {
        return new OffsetForLeaderEpochResponseData(body, version);
    }

    @Override
    public Map<String, EpochEndOffset> results(OffsetForLeaderEpochResponseData response) {
        Map<String, EpochEndOffset> results = new HashMap<>();
        response.topics().forEach(t -> t.partitions().forEach(p ->
                results.put(PartitionRef.answerKey(t.topic(), null, p.partition()), p)));
        return results;
    }

    @Override
    public short errorCode(EpochEndOffset result) {
        return result.errorCode();
    }

    @Override
    public int throttleTimeMs(OffsetForLeaderEpochResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public EpochEndOffset synthetic(PartitionRef ref, Errors error) {
        return new EpochEndOffset().setPartition(ref.partition()).setErrorCode(error.code()).setLeaderEpoch(-1).setEndOffset(-1);
    }

    @Override
    public OffsetForLeaderEpochResponseData merge(OffsetForLeaderEpochRequestData request,
                                                  Map<PartitionRef, EpochEndOffset> results, int throttleTimeMs) {
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData().setThrottleTimeMs(throttleTimeMs);
        for (OffsetForLeaderTopic topic : request.topics()) {
            OffsetForLeaderTopicResult out = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            topic.partitions().forEach(p -> out.partitions().add(results.get(
                    new PartitionRef(topic.topic(), null, p.partition(), null))));
            response.topics().add(out);
        }
        return response;
    }
}
