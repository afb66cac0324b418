package org.kafscale.proxy.routing.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * The partial read of a Produce finds what kafka-clients' own decode finds (acks, every partition
 * as the request names it, in order) at every version, past record sets, transactional ids and
 * tagged fields; and gives up, rather than guess, on a body it cannot read.
 */
class ProduceOutlineTest {
    private static final Uuid ORDERS_ID = Uuid.randomUuid();
    private static final Uuid AUDIT_ID = Uuid.randomUuid();

    @ParameterizedTest
    @ValueSource(shorts = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
    void readsTheSamePartitionsAsTheDecodeAtEveryVersion(short version) {
        // Given a transactional Produce to two topics, one with two partitions, with tagged fields
        // it does not know wherever the version has them
        ProduceRequestData request = request(version);

        // When its outline is read from the bytes
        ProduceOutline outline = outline(request, version);

        // Then it names the partitions the decode does, in the same order, and the acks
        assertEquals(decodedPartitions(request, version), outline.partitions());
        assertEquals((short) -1, outline.acks());
    }

    @Test
    void aBodyCutShortAnywhereIsNotRead() {
        // Given a Produce's bytes
        short version = 13;
        ByteBuffer whole = serialize(request(version), version);
        int headerLength = whole.remaining() - bodyLength(request(version), version);

        // When every shorter prefix of its body is read, Then none reads (each is cut inside a field)
        for (int cut = headerLength; cut < whole.remaining(); cut++) {
            ByteBuffer prefix = whole.duplicate();
            prefix.limit(cut);
            ByteBuf frame = Unpooled.wrappedBuffer(prefix);
            try {
                assertNull(ProduceOutline.read(frame(frame, version, headerLength), TopologySnapshot.EMPTY),
                        "cut at " + cut);
            } finally {
                frame.release();
            }
        }
    }

    @Test
    void aVersionKafkaClientsDoesNotReadIsNotRead() {
        ProduceRequestData request = request((short) 3);
        ByteBuffer bytes = serialize(request, (short) 3);
        ByteBuf frame = Unpooled.wrappedBuffer(bytes);
        try {
            // A v2 header on v3 bytes: the outline does not guess at versions before 3
            RequestFrame v2 = new RequestFrame(ApiKeys.PRODUCE.id, (short) 2, 7, "outline-test",
                    bytes.remaining() - bodyLength(request, (short) 3), frame);
            assertNull(ProduceOutline.read(v2, TopologySnapshot.EMPTY));
        } finally {
            frame.release();
        }
    }

    private static ProduceRequestData request(short version) {
        boolean byId = version >= 13;
        boolean flexible = version >= 9;
        TopicProduceData orders = topic(byId, "orders", ORDERS_ID);
        orders.partitionData().add(new PartitionProduceData().setIndex(0).setRecords(TestRecords.plain("a", "b")));
        orders.partitionData().add(new PartitionProduceData().setIndex(3).setRecords(TestRecords.plain("c")));
        TopicProduceData audit = topic(byId, "audit", AUDIT_ID);
        PartitionProduceData auditPartition = new PartitionProduceData().setIndex(1)
                .setRecords(TestRecords.transactional(7, "d"));
        audit.partitionData().add(auditPartition);
        ProduceRequestData request = new ProduceRequestData().setTransactionalId("txn-1").setAcks((short) -1)
                .setTimeoutMs(30_000);
        request.topicData().add(orders);
        request.topicData().add(audit);
        if (flexible) {
            auditPartition.unknownTaggedFields().add(new RawTaggedField(90, new byte[] {1, 2, 3}));
            orders.unknownTaggedFields().add(new RawTaggedField(91, new byte[200]));
            request.unknownTaggedFields().add(new RawTaggedField(92, new byte[] {4}));
        }
        return request;
    }

    private static TopicProduceData topic(boolean byId, String name, Uuid id) {
        return byId ? new TopicProduceData().setName("").setTopicId(id) : new TopicProduceData().setName(name);
    }

    private static List<PartitionRef> decodedPartitions(ProduceRequestData request, short version) {
        List<PartitionRef> partitions = new ArrayList<>();
        for (TopicProduceData topic : request.topicData()) {
            for (PartitionProduceData partition : topic.partitionData()) {
                partitions.add(new PartitionRef(topic.name(), version >= 13 ? topic.topicId() : null,
                        partition.index(), null));
            }
        }
        return partitions;
    }

    private static ProduceOutline outline(ProduceRequestData request, short version) {
        ByteBuffer bytes = serialize(request, version);
        ByteBuf frame = Unpooled.wrappedBuffer(bytes);
        try {
            return ProduceOutline.read(frame(frame, version, bytes.remaining() - bodyLength(request, version)),
                    TopologySnapshot.EMPTY);
        } finally {
            frame.release();
        }
    }

    private static RequestFrame frame(ByteBuf frame, short version, int headerLength) {
        return new RequestFrame(ApiKeys.PRODUCE.id, version, 7, "outline-test", headerLength, frame);
    }

    private static ByteBuffer serialize(ProduceRequestData request, short version) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.PRODUCE.id)
                .setRequestApiVersion(version).setCorrelationId(7).setClientId("outline-test");
        return RequestUtils.serialize(header, ApiKeys.PRODUCE.requestHeaderVersion(version), request, version);
    }

    private static int bodyLength(ProduceRequestData request, short version) {
        return request.size(new ObjectSerializationCache(), version);
    }
}
