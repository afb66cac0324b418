package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RequestHeaderDecoderTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(new RequestHeaderDecoder());

    @AfterEach
    void releaseEverything() {
        channel.finishAndReleaseAll();
    }

    @Test
    void flexibleHeaderWithTaggedFieldsGivesApiKeyVersionCorrelationIdAndClientId() {
        // Given an ApiVersions v3 request whose (v2) header carries a tagged field
        ApiVersionsRequest request = new ApiVersionsRequest.Builder().build((short) 3);
        RequestHeader header = headerWithTaggedField(ApiKeys.API_VERSIONS, (short) 3, 41, "flexible-client");

        // When the proxy reads its header
        RequestFrame frame = decode(KafkaWire.requestBytes(request, header));

        // Then the header fields are the client's
        try {
            assertEquals(ApiKeys.API_VERSIONS.id, frame.apiKey());
            assertEquals(3, frame.apiVersion());
            assertEquals(41, frame.correlationId());
            assertEquals("flexible-client", frame.clientId());
            assertEquals(Optional.of(ApiKeys.API_VERSIONS), frame.knownApi());
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void flexibleHeaderLengthIncludesTaggedFieldsSoTheBodyParses() {
        // Given a Metadata v12 request whose header carries a tagged field
        MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders")));
        MetadataRequest request = new MetadataRequest.Builder(data).build((short) 12);
        RequestHeader header = headerWithTaggedField(ApiKeys.METADATA, (short) 12, 7, "c");

        // When the proxy reads its header
        RequestFrame frame = decode(KafkaWire.requestBytes(request, header));

        // Then the header length covers the tagged fields and the body decodes to what was sent
        try {
            assertEquals(header.size(), frame.headerLength());
            assertEquals(data, frame.decodeBody().data());
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void nonFlexibleHeaderGivesItsFieldsAndABodyThatParses() {
        // Given a Produce v7 request (header v1, no tagged fields) with a real record batch
        ProduceRequestData data = KafkaWire.produceData("events", 3, "key", "value");
        ProduceRequest request = new ProduceRequest(data, (short) 7);
        RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, (short) 7, "producer-1", 99);

        // When the proxy reads its header
        RequestFrame frame = decode(KafkaWire.requestBytes(request, header));

        // Then fields and header length are right and the body decodes to what was sent
        try {
            assertEquals(ApiKeys.PRODUCE.id, frame.apiKey());
            assertEquals(7, frame.apiVersion());
            assertEquals(99, frame.correlationId());
            assertEquals("producer-1", frame.clientId());
            assertEquals(header.size(), frame.headerLength());
            assertEquals(data, frame.decodeBody().data());
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void nullClientIdIsReadAsNull() {
        // Given a Metadata v8 request without a client id
        MetadataRequest request = new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build((short) 8);
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, (short) 8, null, 5);

        // When the proxy reads its header
        RequestFrame frame = decode(KafkaWire.requestBytes(request, header));

        // Then the client id is null and the body still parses
        try {
            assertNull(frame.clientId());
            assertEquals(5, frame.correlationId());
            assertTrue(((MetadataRequest) frame.decodeBody()).isAllTopics());
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void apiKeyUnknownToKafkaClientsIsEmittedWithNoKnownApiAndTheBodyUntouched() {
        // Given a frame with API key 32000, a v1 header, and an opaque body
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey((short) 32000).setRequestApiVersion((short) 4)
                .setCorrelationId(1234).setClientId("future-client");
        ByteBuffer headerBytes = MessageUtil.toByteBufferAccessor(header, (short) 1).buffer();
        byte[] body = "opaque body".getBytes(StandardCharsets.US_ASCII);
        ByteBuf bytes = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(headerBytes), Unpooled.wrappedBuffer(body));
        int headerLength = headerBytes.remaining();

        // When the proxy reads its header
        RequestFrame frame = decode(bytes);

        // Then it is passed on as an opaque request with the header fields read
        try {
            assertEquals(Optional.empty(), frame.knownApi());
            assertEquals(32000, frame.apiKey());
            assertEquals(4, frame.apiVersion());
            assertEquals(1234, frame.correlationId());
            assertEquals("future-client", frame.clientId());
            assertEquals(headerLength, frame.headerLength());
            assertArrayEquals(body, bytesOf(frame.body()));
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void emittedRequestHoldsTheOnlyReferenceToItsFrame() {
        // Given a well-formed request frame
        ByteBuf bytes = KafkaWire.requestBytes(new ApiVersionsRequest.Builder().build((short) 3), 1, "c");

        // When the proxy reads its header
        RequestFrame frame = decode(bytes);

        // Then the decoder dropped its own reference and the request owns exactly one
        assertEquals(1, frame.frame().refCnt());
        frame.frame().release();
    }

    @Test
    void frameShorterThanTheSmallestHeaderClosesTheChannelAndEmitsNothing() {
        // Given the first 9 bytes of a valid request (the smallest header has 10)
        ByteBuf whole = KafkaWire.requestBytes(new ApiVersionsRequest.Builder().build((short) 2), 1, "client");
        ByteBuf truncated = Unpooled.copiedBuffer(whole.slice(0, 9));
        whole.release();

        // When it arrives
        channel.writeInbound(truncated);

        // Then the connection closes, nothing is emitted, and the frame is released
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
        assertEquals(0, truncated.refCnt());
    }

    @Test
    void clientIdLengthPointingBeyondTheFrameClosesTheChannel() {
        // Given a header (malformed on purpose, so written by hand) whose client id claims 50 bytes but has 2
        ByteBuf malformed = Unpooled.buffer()
                .writeShort(ApiKeys.API_VERSIONS.id).writeShort(2).writeInt(7)
                .writeShort(50).writeBytes("ab".getBytes(StandardCharsets.US_ASCII));

        // When it arrives
        channel.writeInbound(malformed);

        // Then the connection closes, nothing is emitted, and the frame is released
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
        assertEquals(0, malformed.refCnt());
    }

    @Test
    void framesAfterABadHeaderInTheSameReadAreDroppedNotEmitted() {
        // Given a read holding a frame too short for a header followed by a well-formed request
        EmbeddedChannel framed = new EmbeddedChannel(new KafkaFrameDecoder(KafkaWire.MAX_FRAME_BYTES, "client"),
                new RequestHeaderDecoder());
        ByteBuf bad = KafkaWire.sizePrefixed(Unpooled.buffer().writeBytes(new byte[] {0, 3, 0}));
        ByteBuf good = KafkaWire.sizePrefixed(KafkaWire.requestBytes(new ApiVersionsRequest.Builder().build((short) 3), 2, "c"));

        // When the read arrives
        framed.writeInbound(Unpooled.wrappedBuffer(bad, good));

        // Then the connection closes and neither frame is passed on
        assertFalse(framed.isOpen());
        assertNull(framed.readInbound());
        framed.finishAndReleaseAll();
    }

    private RequestFrame decode(ByteBuf bytes) {
        channel.writeInbound(bytes);
        RequestFrame frame = channel.readInbound();
        if (frame == null) {
            throw new AssertionError("no request was emitted; channel open: " + channel.isOpen());
        }
        return frame;
    }

    private static RequestHeader headerWithTaggedField(ApiKeys api, short version, int correlationId, String clientId) {
        RequestHeaderData data = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId(clientId);
        data.unknownTaggedFields().add(new RawTaggedField(5, new byte[] {1, 2, 3, 4}));
        short headerVersion = api.requestHeaderVersion(version);
        if (headerVersion != 2) {
            throw new IllegalArgumentException(api + " v" + version + " has no flexible header");
        }
        return new RequestHeader(data, headerVersion);
    }

    private static byte[] bytesOf(ByteBuffer buffer) {
        return ByteBufUtil.getBytes(Unpooled.wrappedBuffer(buffer));
    }
}
