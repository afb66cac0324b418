package org.kafscale.proxy.routing.partition;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.engine.PartitionShape;
import org.kafscale.proxy.routing.engine.TopicGroups.Shape;

/**
 * WriteTxnMarkers as a client sends it (kafka-transactions abort, {@code Admin.abortTransaction}):
 * one marker, for one producer, whose topics nest the partitions. Split by partition leader like
 * any partition API ({@link PartitionShape}); the merged answer names the marker's producer id,
 * which the Admin checks. Writing a marker twice is harmless (the leader keeps the producer's
 * state), so the read defaults hold. A request with several markers (what a transaction
 * coordinator sends) is not split here: see its entry in {@code routing.apis.Apis}.
 */
final class WriteTxnMarkersApi implements PartitionApi<WriteTxnMarkersRequestData, Integer, WriteTxnMarkersResponseData,
        WritableTxnMarkerPartitionResult> {
    private static final PartitionShape<WriteTxnMarkersRequestData, WritableTxnMarkerTopic, Integer,
            WriteTxnMarkersResponseData, WritableTxnMarkerTopicResult, WritableTxnMarkerPartitionResult> SHAPE =
            PartitionShape.of(ApiKeys.WRITE_TXN_MARKERS, WriteTxnMarkersRequestData.class, WriteTxnMarkersResponseData.class)
                    .parse(WriteTxnMarkersResponseData::new)
                    .requestTopics(q -> marker(q).topics(), Shape.byName(WritableTxnMarkerTopic::name,
                            WritableTxnMarkerTopic::partitionIndexes, Integer::intValue,
                            name -> new WritableTxnMarkerTopic().setName(name)))
                    .split((q, topics) -> new WriteTxnMarkersRequestData()
                            .setMarkers(List.of(marker(q).duplicate().setTopics(topics))))
                    .answerTopics(r -> r.markers().isEmpty() ? List.of() : r.markers().get(0).topics(),
                            Shape.byName(WritableTxnMarkerTopicResult::name, WritableTxnMarkerTopicResult::partitions,
                                    WritableTxnMarkerPartitionResult::partitionIndex,
                                    name -> new WritableTxnMarkerTopicResult().setName(name)))
                    .errorCode(WritableTxnMarkerPartitionResult::errorCode)
                    // The answer has no throttle time.
                    .throttle(r -> 0)
                    .synthetic((ref, error) -> new WritableTxnMarkerPartitionResult().setPartitionIndex(ref.partition())
                            .setErrorCode(error.code()))
                    .merged((topics, throttle) -> new WriteTxnMarkersResponseData().setMarkers(
                            List.of(new WritableTxnMarkerResult().setTopics(topics))));

    private static WritableTxnMarker marker(WriteTxnMarkersRequestData request) {
        return request.markers().get(0);
    }

    @Override
    public ApiKeys api() {
        return SHAPE.api();
    }

    @Override
    public Map<PartitionRef, Integer> partitions(WriteTxnMarkersRequestData request, TopologySnapshot snapshot) {
        return SHAPE.partitions(request, snapshot);
    }

    @Override
    public WriteTxnMarkersRequestData subRequest(WriteTxnMarkersRequestData request, List<PartitionRef> parts,
                                                 Map<PartitionRef, Integer> entries) {
        return SHAPE.subRequest(request, parts, entries);
    }

    @Override
    public WriteTxnMarkersResponseData parseResponse(ByteBufferAccessor body, short version) {
        return SHAPE.parseResponse(body, version);
    }

    @Override
    public Map<PartitionRef.AnswerKey, WritableTxnMarkerPartitionResult> results(WriteTxnMarkersResponseData response) {
        return SHAPE.results(response);
    }

    @Override
    public short errorCode(WritableTxnMarkerPartitionResult result) {
        return SHAPE.errorCode(result);
    }

    @Override
    public int throttleTimeMs(WriteTxnMarkersResponseData response) {
        return 0;
    }

    @Override
    public WritableTxnMarkerPartitionResult synthetic(PartitionRef ref, Errors error) {
        return SHAPE.synthetic(ref, error);
    }

    @Override
    public WriteTxnMarkersResponseData merge(WriteTxnMarkersRequestData request, Map<PartitionRef, Integer> entries,
                                             Map<PartitionRef, WritableTxnMarkerPartitionResult> results, int throttleTimeMs) {
        WriteTxnMarkersResponseData merged = SHAPE.merge(request, entries, results, throttleTimeMs);
        merged.markers().get(0).setProducerId(marker(request).producerId());
        return merged;
    }
}
