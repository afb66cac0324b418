package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Spec pitfall P1, "double framing": a request the proxy re-encodes must leave it with exactly one
 * size prefix, written by the channel's {@code LengthFieldPrepender}, and read back unchanged.
 */
class RequestFramesTest {

    private static final int CORRELATION_ID = 4242;
    private static final String CLIENT_ID = "round-trip-client";
    private static final Uuid ORDERS_ID = Uuid.fromString("b5Wzo1ZbQ2m3BSd4rtQsQw");
    private static final Uuid PAYMENTS_ID = Uuid.fromString("Vm3fPNd7TkKh7q2jGeVZ1A");

    /** One request, built with kafka-clients at one version. */
    record Case(String name, AbstractRequest request) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> requests() {
        List<Case> cases = new ArrayList<>();
        for (short v : new short[] {3, 7, 9, 12, 13}) {
            cases.add(new Case("Produce v" + v, new ProduceRequest(produceData(v), v)));
        }
        for (short v : new short[] {12, 13, 18}) {
            cases.add(new Case("Fetch v" + v, new FetchRequest(fetchData(v), v)));
        }
        for (short v : new short[] {1, 4, 8, 9, 12, 13}) {
            cases.add(new Case("Metadata v" + v, new MetadataRequest.Builder(metadataData(v)).build(v)));
        }
        for (short v : new short[] {1, 5, 6, 10, 11}) {
            cases.add(new Case("ListOffsets v" + v, ListOffsetsRequest.Builder
                    .forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                    .setTargetTimes(listOffsetsTopics(v))
                    .build(v)));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void reencodedRequestReadBackThroughThePipelineHasTheOriginalBody(Case c) {
        // Given a client request the proxy has parsed and re-encoded
        ByteBuf reencoded = reencodeUnchanged(c.request());

        // When it goes out through the size prepender and comes back through the frame and header decoders
        RequestFrame back = readBack(KafkaWire.sizePrefixed(reencoded));

        // Then the body parses to the data the client sent, under the client's header fields
        try {
            assertEquals(c.request().data(), back.decodeBody().data());
            assertEquals(c.request().apiKey().id, back.apiKey());
            assertEquals(c.request().version(), back.apiVersion());
            assertEquals(CORRELATION_ID, back.correlationId());
            assertEquals(CLIENT_ID, back.clientId());
        } finally {
            back.frame().release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void reencodedRequestOnTheWireCarriesExactlyOneSizePrefix(Case c) {
        // Given a client request the proxy has parsed and re-encoded
        ByteBuf reencoded = reencodeUnchanged(c.request());

        // When it goes out through the size prepender
        ByteBuf wire = KafkaWire.sizePrefixed(reencoded);

        // Then the one size field counts every byte after it, and the request header follows it directly
        try {
            assertEquals(wire.readableBytes() - 4, wire.getInt(0));
            assertEquals(c.request().apiKey().id, wire.getShort(4));
            assertEquals(c.request().version(), wire.getShort(6));
            assertEquals(CORRELATION_ID, wire.getInt(8));
        } finally {
            wire.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void reencodingAnUnchangedBodyReproducesTheClientsBytes(Case c) {
        // Given the bytes a client sent
        ByteBuf sent = KafkaWire.requestBytes(c.request(), CORRELATION_ID, CLIENT_ID);
        byte[] expected = ByteBufUtil.getBytes(sent);
        sent.release();

        // When the proxy parses and re-encodes the request without changing it
        ByteBuf reencoded = reencodeUnchanged(c.request());

        // Then the frame is byte for byte what the client sent (no size prefix added here)
        try {
            assertArrayEquals(expected, ByteBufUtil.getBytes(reencoded));
        } finally {
            reencoded.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void aRequestWithANewBodyIsTheFrameThePipelineWouldHaveReadForIt(Case c) {
        // Given a client request the proxy has parsed, given its own body again (as authorization narrows one)
        RequestFrame parsed = KafkaWire.requestFrame(c.request(), CORRELATION_ID, CLIENT_ID);
        RequestFrame narrowed;
        try {
            narrowed = RequestFrames.withBody(parsed, parsed.decodeBody().data());
        } finally {
            parsed.frame().release();
        }
        // When the same bytes come in through the pipeline
        RequestFrame back = readBack(KafkaWire.sizePrefixed(narrowed.frame().retainedDuplicate()));
        // Then both frames say the same: header fields, header length and body
        try {
            assertEquals(back.headerLength(), narrowed.headerLength());
            assertEquals(back.correlationId(), narrowed.correlationId());
            assertEquals(back.clientId(), narrowed.clientId());
            assertEquals(c.request().data(), narrowed.decodeBody().data());
        } finally {
            back.frame().release();
            narrowed.frame().release();
        }
    }

    /** Parses a client request with the proxy's header decoder, decodes its body and re-encodes it. */
    private static ByteBuf reencodeUnchanged(AbstractRequest request) {
        RequestFrame parsed = KafkaWire.requestFrame(request, CORRELATION_ID, CLIENT_ID);
        try {
            return RequestFrames.reencode(parsed, parsed.decodeBody().data());
        } finally {
            parsed.frame().release();
        }
    }

    private static RequestFrame readBack(ByteBuf wire) {
        EmbeddedChannel inbound = new EmbeddedChannel(
                new KafkaFrameDecoder(KafkaWire.MAX_FRAME_BYTES, "client"), new RequestHeaderDecoder());
        inbound.writeInbound(wire);
        RequestFrame back = inbound.readInbound();
        Object extra = inbound.readInbound();
        inbound.finishAndReleaseAll();
        if (back == null || extra != null) {
            if (back != null) {
                back.frame().release();
            }
            ReferenceCountUtil.release(extra);
            throw new AssertionError("expected exactly one request back");
        }
        return back;
    }

    private static ProduceRequestData produceData(short version) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(1_700_000_000_000L, bytes("k1"), bytes("v1")),
                new SimpleRecord(1_700_000_000_001L, bytes("k2"), bytes("v2")));
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData()
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(2).setRecords(records)));
        if (version >= 13) {
            topic.setTopicId(ORDERS_ID);
        } else {
            topic.setName("orders");
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topic);
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics);
    }

    private static FetchRequestData fetchData(short version) {
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic()
                .setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setCurrentLeaderEpoch(5)
                                .setFetchOffset(42).setLogStartOffset(-1).setPartitionMaxBytes(1 << 20),
                        new FetchRequestData.FetchPartition().setPartition(1).setCurrentLeaderEpoch(5)
                                .setFetchOffset(7).setLogStartOffset(-1).setPartitionMaxBytes(1 << 20)));
        FetchRequestData.ForgottenTopic forgotten = new FetchRequestData.ForgottenTopic().setPartitions(List.of(3));
        if (version >= 13) {
            topic.setTopicId(ORDERS_ID);
            forgotten.setTopicId(PAYMENTS_ID);
        } else {
            topic.setTopic("orders");
            forgotten.setTopic("payments");
        }
        return new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(50 << 20)
                .setIsolationLevel(IsolationLevel.READ_COMMITTED.id()).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(topic)).setForgottenTopicsData(List.of(forgotten)).setRackId("rack-a");
    }

    private static MetadataRequestData metadataData(short version) {
        List<MetadataRequestData.MetadataRequestTopic> topics = new ArrayList<>();
        topics.add(new MetadataRequestData.MetadataRequestTopic().setName("orders"));
        topics.add(new MetadataRequestData.MetadataRequestTopic().setName("payments"));
        if (version >= 12) {
            topics.add(new MetadataRequestData.MetadataRequestTopic().setName(null).setTopicId(ORDERS_ID));
        }
        MetadataRequestData data = new MetadataRequestData().setTopics(topics);
        if (version >= 4) {
            data.setAllowAutoTopicCreation(false);
        }
        return data;
    }

    private static List<ListOffsetsRequestData.ListOffsetsTopic> listOffsetsTopics(short version) {
        ListOffsetsRequestData.ListOffsetsPartition partition = new ListOffsetsRequestData.ListOffsetsPartition()
                .setPartitionIndex(4).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP);
        if (version >= 4) {
            partition.setCurrentLeaderEpoch(9);
        }
        return List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName("orders").setPartitions(List.of(partition)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
