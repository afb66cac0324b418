package org.kafscale.proxy.fetch.partition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.fetch.routing.PartitionRef;

/** DescribeProducers: by topic name and partition indexes; a made-up result lists no producers. */
final class DescribeProducersApi
        implements PartitionApi<DescribeProducersRequestData, DescribeProducersResponseData, PartitionResponse> {

    @Override
    public List<PartitionRef> partitions(DescribeProducersRequestData request, TopologySnapshot snapshot) {
        List<PartitionRef> refs = new ArrayList<>();
        request.topics().forEach(t -> t.partitionIndexes().forEach(p -> refs.add(PartitionRef.of(t.name(), null, p, snapshot))));
        return refs;
    }

    @Override
    public DescribeProducersRequestData subRequest(DescribeProducersRequestData request, List<PartitionRef> parts) {
        Map<String, TopicRequest> topics = new LinkedHashMap<>();
        for (PartitionRef ref : parts) {
            topics.computeIfAbsent(ref.name(), n -> new TopicRequest().setName(n).setPartitionIndexes(new ArrayList<>()))
                    .partitionIndexes().add(ref.partition());
        }
        return new DescribeProducersRequestData().setTopics(new ArrayList<>(topics.values()));
    }

    @Override
    public DescribeProducersResponseData parseResponse(ByteBufferAccessor body, short version) {
        return new DescribeProducersResponseData(body, version);
    }

    @Override
    public Map<String, PartitionResponse> results(DescribeProducersResponseData response) {
        Map<String, PartitionResponse> results = new HashMap<>();
        response.topics().forEach(t -> t.partitions().forEach(p ->
                results.put(PartitionRef.answerKey(t.name(), null, p.partitionIndex()), p)));
        return results;
    }

    @Override
    public short errorCode(PartitionResponse result) {
        return result.errorCode();
    }

    @Override
    public int throttleTimeMs(DescribeProducersResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public PartitionResponse synthetic(PartitionRef ref, Errors error) {
        return new PartitionResponse().setPartitionIndex(ref.partition()).setErrorCode(error.code())
                .setErrorMessage(error.message());
    }

    @Override
    public DescribeProducersResponseData merge(DescribeProducersRequestData request,
                                               Map<PartitionRef, PartitionResponse> results, int throttleTimeMs) {
        DescribeProducersResponseData response = new DescribeProducersResponseData().setThrottleTimeMs(throttleTimeMs);
        for (TopicRequest topic : request.topics()) {
            TopicResponse out = new TopicResponse().setName(topic.name());
            topic.partitionIndexes().forEach(p -> out.partitions().add(results.get(new PartitionRef(topic.name(), null, p, null))));
            response.topics().add(out);
        }
        return response;
    }
}
