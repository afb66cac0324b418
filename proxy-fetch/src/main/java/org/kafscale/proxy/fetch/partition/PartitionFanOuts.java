package org.kafscale.proxy.fetch.partition;

import io.netty.util.concurrent.Future;
import java.util.Optional;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.routing.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.fetch.routing.BackendForwarder;

/**
 * The partition APIs besides Produce and Fetch that are split by owner: ListOffsets,
 * OffsetForLeaderEpoch, DeleteRecords, DescribeProducers.
 */
public final class PartitionFanOuts {
    private final PartitionFanOut<ListOffsetsRequestData, ?, ?> listOffsets;
    private final PartitionFanOut<OffsetForLeaderEpochRequestData, ?, ?> offsetForLeaderEpoch;
    private final PartitionFanOut<DeleteRecordsRequestData, ?, ?> deleteRecords;
    private final PartitionFanOut<DescribeProducersRequestData, ?, ?> describeProducers;

    public PartitionFanOuts(Topology topology, BackendForwarder forwarder, RoutingObserver observer) {
        this.listOffsets = new PartitionFanOut<>(ApiKeys.LIST_OFFSETS, new ListOffsetsApi(), topology, forwarder, observer);
        this.offsetForLeaderEpoch = new PartitionFanOut<>(ApiKeys.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochApi(),
                topology, forwarder, observer);
        this.deleteRecords = new PartitionFanOut<>(ApiKeys.DELETE_RECORDS, new DeleteRecordsApi(), topology, forwarder, observer);
        this.describeProducers = new PartitionFanOut<>(ApiKeys.DESCRIBE_PRODUCERS, new DescribeProducersApi(), topology,
                forwarder, observer);
    }

    /** Handles the request when it is one of these APIs. */
    public Optional<Future<Reply>> handle(ConnectionContext context, RequestFrame request, AbstractRequest body) {
        if (body instanceof ListOffsetsRequest r) {
            return Optional.of(listOffsets.handle(context, request, r.data()));
        }
        if (body instanceof OffsetsForLeaderEpochRequest r) {
            return Optional.of(offsetForLeaderEpoch.handle(context, request, r.data()));
        }
        if (body instanceof DeleteRecordsRequest r) {
            return Optional.of(deleteRecords.handle(context, request, r.data()));
        }
        if (body instanceof DescribeProducersRequest r) {
            return Optional.of(describeProducers.handle(context, request, r.data()));
        }
        return Optional.empty();
    }
}
