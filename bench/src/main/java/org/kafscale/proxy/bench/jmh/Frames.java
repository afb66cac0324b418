package org.kafscale.proxy.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.compress.Compression;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/** Inputs for the codec benchmarks, built with kafka-clients' own classes as a real client or broker would. */
final class Frames {
    static final String TOPIC = "bench";
    static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    static final int BROKERS = 3;

    private Frames() {
    }

    /** Header then body, without the size prefix, in a pooled direct buffer (as frames arrive off the wire). */
    static ByteBuf requestFrame(ApiKeys api, short version, Message body) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(7).setClientId("producer-1");
        return frame(header, api.requestHeaderVersion(version), body, version);
    }

    static ByteBuf responseFrame(ApiKeys api, short version, int correlationId, Message body) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        return frame(header, api.responseHeaderVersion(version), body, version);
    }

    private static ByteBuf frame(Message header, short headerVersion, Message body, short version) {
        ByteBuffer headerBytes = MessageUtil.toByteBufferAccessor(header, headerVersion).buffer();
        ByteBuffer bodyBytes = MessageUtil.toByteBufferAccessor(body, version).buffer();
        ByteBuf frame = ByteBufAllocator.DEFAULT.directBuffer(headerBytes.remaining() + bodyBytes.remaining());
        frame.writeBytes(headerBytes).writeBytes(bodyBytes);
        return frame;
    }

    /** One uncompressed batch of {@code count} records of {@code valueBytes} random bytes. */
    static MemoryRecords batch(int count, int valueBytes) {
        List<SimpleRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            ThreadLocalRandom.current().nextBytes(value);
            records.add(new SimpleRecord(value));
        }
        return MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]));
    }

    /** Three brokers; partition p of {@link #TOPIC} is led by broker p % 3. */
    static TopologySnapshot snapshot(int partitions) {
        List<BrokerEndpoint> brokers = new ArrayList<>();
        for (int id = 0; id < BROKERS; id++) {
            brokers.add(new BrokerEndpoint(id, "127.0.0.1", 9000 + id, null));
        }
        java.util.Map<Integer, PartitionLayout> layout = new java.util.TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            layout.put(p, new PartitionLayout(p, p % BROKERS, 0, List.of(p % BROKERS), List.of(p % BROKERS), List.of()));
        }
        return TopologySnapshot.of("bench", 0, brokers, List.of(TopicLayout.of(TOPIC, TOPIC_ID, false, layout)));
    }
}
