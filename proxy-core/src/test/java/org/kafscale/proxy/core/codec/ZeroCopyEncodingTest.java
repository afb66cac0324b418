package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;

/**
 * Re-encoded requests and merged answers carry record bytes as slices of the frames they came
 * from, not copies: a change to the source frame after encoding shows in the encoded bytes.
 */
class ZeroCopyEncodingTest {
    private static final byte[] VALUE = "zero-copy-marker".getBytes(StandardCharsets.UTF_8);

    @Test
    void reencodedProduceCarriesTheClientsRecordBytesWithoutCopying() {
        // Given: a client Produce, parsed as the proxy parses it
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("t");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(VALUE))));
        data.topicData().add(topic);
        RequestFrame request = KafkaWire.requestFrame(ProduceRequest.builder(data).build((short) 9), 7, "c");
        try {
            ProduceRequestData parsed = ((ProduceRequest) request.decodeBody()).data();
            // When
            ByteBuf encoded = RequestFrames.reencode(request, parsed);
            try {
                int inFrame = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(VALUE), request.frame());
                int inEncoded = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(VALUE), encoded);
                request.frame().setByte(inFrame, 'Z');
                // Then: the encoded request sees the change, so it holds the client's bytes
                assertEquals('Z', encoded.getByte(inEncoded));
            } finally {
                encoded.release();
            }
        } finally {
            request.frame().release();
        }
    }

    @Test
    void mergedFetchAnswerSlicesTheBrokersAnswerFrame() {
        // Given: a broker's Fetch answer frame and the records parsed from it as views
        FetchResponseData brokerAnswer = new FetchResponseData();
        FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse().setTopic("t");
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(1)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(VALUE))));
        brokerAnswer.responses().add(topic);
        ByteBuf frame = ResponseFrames.encode(ApiKeys.FETCH, (short) 12, 1, brokerAnswer);
        ByteBuf direct = Unpooled.directBuffer(frame.readableBytes()).writeBytes(frame);
        frame.release();
        try {
            ByteBuffer view = direct.nioBuffer();
            ResponseHeader.parse(view, ApiKeys.FETCH.responseHeaderVersion((short) 12));
            FetchResponseData parsed = new FetchResponseData(new ByteBufferAccessor(view), (short) 12);
            // When: the proxy re-encodes the parsed answer with the broker frame as the records' owner
            ByteBuf merged = ResponseFrames.encode(ApiKeys.FETCH, (short) 12, 9, parsed, List.of(direct));
            try {
                int inBroker = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(VALUE), direct);
                int inMerged = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(VALUE), merged);
                direct.setByte(inBroker, 'Z');
                // Then
                assertEquals('Z', merged.getByte(inMerged));
                byte[] rest = new byte[VALUE.length - 1];
                merged.getBytes(inMerged + 1, rest);
                assertArrayEquals(java.util.Arrays.copyOfRange(VALUE, 1, VALUE.length), rest);
            } finally {
                merged.release();
            }
        } finally {
            direct.release();
        }
    }
}
