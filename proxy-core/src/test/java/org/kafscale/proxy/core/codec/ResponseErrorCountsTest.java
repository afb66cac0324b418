package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ResponseErrorCountsTest {

    @Test
    void errorsAreCountedInEveryPartOfAnAnswer() {
        // Given a coordinator's OffsetCommit answer with NOT_COORDINATOR for two of three partitions
        OffsetCommitResponseData answer = new OffsetCommitResponseData().setTopics(List.of(
                new OffsetCommitResponseTopic().setName("orders").setPartitions(List.of(
                        new OffsetCommitResponsePartition().setPartitionIndex(0).setErrorCode(Errors.NONE.code()),
                        new OffsetCommitResponsePartition().setPartitionIndex(1)
                                .setErrorCode(Errors.NOT_COORDINATOR.code()))),
                new OffsetCommitResponseTopic().setName("payments").setPartitions(List.of(
                        new OffsetCommitResponsePartition().setPartitionIndex(0)
                                .setErrorCode(Errors.NOT_COORDINATOR.code())))));
        short version = 8;
        ByteBuf frame = ResponseFrames.encode(ApiKeys.OFFSET_COMMIT, version, 3, answer);

        // When the proxy counts the errors in the answer's body
        Map<Errors, Integer> counts;
        try {
            counts = ResponseFrames.errorCounts(ApiKeys.OFFSET_COMMIT, version,
                    ResponseFrames.body(ApiKeys.OFFSET_COMMIT, version, frame));
        } finally {
            frame.release();
        }

        // Then both topics' errors are counted
        assertEquals(Map.of(Errors.NONE, 1, Errors.NOT_COORDINATOR, 2), counts);
    }
}
