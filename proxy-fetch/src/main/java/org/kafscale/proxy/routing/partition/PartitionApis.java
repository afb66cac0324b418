package org.kafscale.proxy.routing.partition;

import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResultCollection;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.engine.PartitionShape;
import org.kafscale.proxy.routing.engine.TopicGroups.Shape;

/**
 * The partition APIs besides Produce and Fetch whose shapes are kept apart from their entries (ListOffsets,
 * DeleteRecords, DescribeProducers, WriteTxnMarkers; OffsetForLeaderEpoch's is written in its entry
 * in {@code routing.apis.Apis}), each split by owner through the partition engine
 * with the defaults of a read that is safe to repeat (DeleteRecords too: moving a low watermark
 * to a given offset is idempotent). A new such API may be written whole in its entry in
 * {@code routing.apis.Apis}, or name a shape kept here. Made-up results carry Kafka's defaults
 * (-1), never 0.
 */
public final class PartitionApis {
    public static final PartitionApi<ListOffsetsRequestData, ListOffsetsPartition, ListOffsetsResponseData,
            ListOffsetsPartitionResponse> LIST_OFFSETS = PartitionShape
            .of(ApiKeys.LIST_OFFSETS, ListOffsetsRequestData.class, ListOffsetsResponseData.class)
            .parse(ListOffsetsResponseData::new)
            .requestTopics(ListOffsetsRequestData::topics, Shape.byName(ListOffsetsTopic::name,
                    ListOffsetsTopic::partitions, ListOffsetsPartition::partitionIndex,
                    name -> new ListOffsetsTopic().setName(name)))
            .split((q, topics) -> new ListOffsetsRequestData().setReplicaId(q.replicaId())
                    .setIsolationLevel(q.isolationLevel()).setTimeoutMs(q.timeoutMs()).setTopics(topics))
            .answerTopics(ListOffsetsResponseData::topics, Shape.byName(ListOffsetsTopicResponse::name,
                    ListOffsetsTopicResponse::partitions, ListOffsetsPartitionResponse::partitionIndex,
                    name -> new ListOffsetsTopicResponse().setName(name)))
            .errorCode(ListOffsetsPartitionResponse::errorCode)
            .throttle(ListOffsetsResponseData::throttleTimeMs)
            .synthetic((ref, error) -> new ListOffsetsPartitionResponse().setPartitionIndex(ref.partition())
                    .setErrorCode(error.code()).setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1))
            .merged((topics, throttle) -> new ListOffsetsResponseData().setThrottleTimeMs(throttle).setTopics(topics));

    /** A result belongs to its answer's keyed collection, so it joins the merged answer as a copy. */
    public static final PartitionApi<DeleteRecordsRequestData, DeleteRecordsPartition, DeleteRecordsResponseData,
            DeleteRecordsPartitionResult> DELETE_RECORDS = PartitionShape
            .of(ApiKeys.DELETE_RECORDS, DeleteRecordsRequestData.class, DeleteRecordsResponseData.class)
            .parse(DeleteRecordsResponseData::new)
            .requestTopics(DeleteRecordsRequestData::topics, Shape.byName(DeleteRecordsTopic::name,
                    DeleteRecordsTopic::partitions, DeleteRecordsPartition::partitionIndex,
                    name -> new DeleteRecordsTopic().setName(name)))
            .split((q, topics) -> new DeleteRecordsRequestData().setTimeoutMs(q.timeoutMs()).setTopics(topics))
            .answerTopics(DeleteRecordsResponseData::topics, Shape.byName(DeleteRecordsTopicResult::name,
                    DeleteRecordsTopicResult::partitions, DeleteRecordsPartitionResult::partitionIndex,
                    name -> new DeleteRecordsTopicResult().setName(name)
                            .setPartitions(new DeleteRecordsPartitionResultCollection())))
            .errorCode(DeleteRecordsPartitionResult::errorCode)
            .throttle(DeleteRecordsResponseData::throttleTimeMs)
            .synthetic((ref, error) -> new DeleteRecordsPartitionResult().setPartitionIndex(ref.partition())
                    .setErrorCode(error.code()).setLowWatermark(-1))
            .detach(DeleteRecordsPartitionResult::duplicate)
            .merged((topics, throttle) -> new DeleteRecordsResponseData().setThrottleTimeMs(throttle)
                    .setTopics(new DeleteRecordsTopicResultCollection(topics.iterator())));

    public static final PartitionApi<DescribeProducersRequestData, Integer, DescribeProducersResponseData,
            PartitionResponse> DESCRIBE_PRODUCERS = PartitionShape
            .of(ApiKeys.DESCRIBE_PRODUCERS, DescribeProducersRequestData.class, DescribeProducersResponseData.class)
            .parse(DescribeProducersResponseData::new)
            .requestTopics(DescribeProducersRequestData::topics, Shape.byName(TopicRequest::name,
                    TopicRequest::partitionIndexes, Integer::intValue, name -> new TopicRequest().setName(name)))
            .split((q, topics) -> new DescribeProducersRequestData().setTopics(topics))
            .answerTopics(DescribeProducersResponseData::topics, Shape.byName(TopicResponse::name,
                    TopicResponse::partitions, PartitionResponse::partitionIndex,
                    name -> new TopicResponse().setName(name)))
            .errorCode(PartitionResponse::errorCode)
            .throttle(DescribeProducersResponseData::throttleTimeMs)
            .synthetic((ref, error) -> new PartitionResponse().setPartitionIndex(ref.partition())
                    .setErrorCode(error.code()).setErrorMessage(error.message()))
            .merged((topics, throttle) -> new DescribeProducersResponseData().setThrottleTimeMs(throttle)
                    .setTopics(topics));

    public static final PartitionApi<WriteTxnMarkersRequestData, Integer, WriteTxnMarkersResponseData,
            WritableTxnMarkerPartitionResult> WRITE_TXN_MARKERS = new WriteTxnMarkersApi();

    private PartitionApis() {
    }
}
