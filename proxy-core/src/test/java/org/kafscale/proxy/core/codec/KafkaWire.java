package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Test fixtures for Kafka bytes: requests serialized by kafka-clients, frames parsed by the proxy's
 * own header decoder, size prefixes written by Netty's {@link LengthFieldPrepender}, and answers
 * parsed back by kafka-clients. No byte layout is written by hand here.
 */
public final class KafkaWire {

    public static final int MAX_FRAME_BYTES = 1024 * 1024;

    private KafkaWire() {
    }

    /** A request as a client writes it, header and body, without the size prefix. */
    public static ByteBuf requestBytes(AbstractRequest request, int correlationId, String clientId) {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), clientId, correlationId);
        return requestBytes(request, header);
    }

    /** A request with a header the caller built (e.g. with tagged fields). */
    public static ByteBuf requestBytes(AbstractRequest request, RequestHeader header) {
        return Unpooled.wrappedBuffer(request.serializeWithHeader(header));
    }

    /**
     * The {@link RequestFrame} the proxy's header decoder makes of {@code request}. The caller owns
     * it and releases {@code frame()}.
     */
    public static RequestFrame requestFrame(AbstractRequest request, int correlationId, String clientId) {
        ByteBuf bytes = requestBytes(request, correlationId, clientId);
        try {
            return RequestHeaderDecoder.parse(bytes);
        } finally {
            bytes.release();
        }
    }

    /**
     * The {@link RequestFrame} the proxy's header decoder makes of request bytes built some other
     * way (e.g. a header at a version kafka-clients cannot serialize a body for); {@code bytes} is consumed.
     */
    public static RequestFrame requestFrame(ByteBuf bytes) {
        try {
            return RequestHeaderDecoder.parse(bytes);
        } finally {
            bytes.release();
        }
    }

    /** {@code frame} with a 4-byte size in front, written by Netty's prepender; {@code frame} is consumed. */
    public static ByteBuf sizePrefixed(ByteBuf frame) {
        EmbeddedChannel prepender = new EmbeddedChannel(new LengthFieldPrepender(4));
        prepender.writeOutbound(frame);
        ByteBuf wire = drainOutbound(prepender);
        prepender.finishAndReleaseAll();
        return wire;
    }

    /** Every outbound buffer of {@code channel}, copied into one unpooled buffer; the originals are released. */
    public static ByteBuf drainOutbound(EmbeddedChannel channel) {
        ByteBuf all = Unpooled.buffer();
        Object msg;
        while ((msg = channel.readOutbound()) != null) {
            try {
                all.writeBytes((ByteBuf) msg);
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }
        return all;
    }

    /** Splits size-prefixed bytes into frames (size prefix removed) with the proxy's frame decoder; {@code wire} is consumed. */
    public static List<ByteBuf> splitFrames(ByteBuf wire) {
        EmbeddedChannel decoder = new EmbeddedChannel(new KafkaFrameDecoder(MAX_FRAME_BYTES, "test"));
        decoder.writeInbound(wire);
        List<ByteBuf> frames = new ArrayList<>();
        ByteBuf frame;
        while ((frame = decoder.readInbound()) != null) {
            frames.add(frame);
        }
        decoder.finishAndReleaseAll();
        return frames;
    }

    /** Produce data for one partition holding one real record batch of one record. */
    public static ProduceRequestData produceData(String topic, int partition, String key, String value) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1_700_000_000_000L,
                key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(
                List.of(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records))));
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics);
    }

    /** An answer as kafka-clients reads it. */
    public record Response(int correlationId, AbstractResponse body) {
        public <T extends AbstractResponse> T as(Class<T> type) {
            return type.cast(body);
        }
    }

    /**
     * Parses an answer frame (no size prefix) with kafka-clients at {@code version}, copying it
     * first, then releases {@code frame}.
     */
    public static Response parseResponseAndRelease(ByteBuf frame, ApiKeys api, short version) {
        ByteBuffer copy;
        try {
            copy = ByteBuffer.wrap(ByteBufUtil.getBytes(frame));
        } finally {
            frame.release();
        }
        ResponseHeader header = ResponseHeader.parse(copy, api.responseHeaderVersion(version));
        AbstractResponse body = AbstractResponse.parseResponse(api, new ByteBufferAccessor(copy), version);
        if (copy.hasRemaining()) {
            throw new AssertionError(copy.remaining() + " bytes left after parsing " + api + " v" + version);
        }
        return new Response(header.correlationId(), body);
    }
}
