package org.kafscale.proxy.bench.jmh;

import io.netty.buffer.ByteBuf;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.MessageUtil;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.OwnerGroups;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The Produce split of single advertise mode, step for step as {@code ProduceFanOut} takes it: decode
 * the body (records stay views), key each partition, group by owner ({@link OwnerGroups}), and
 * re-encode one sub-request per broker whose record sets are slices of the client's frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ProduceSplitBenchmark {
    private static final int PARTITIONS = 12;

    /** Records of 1 KiB per partition batch. */
    @Param({"1", "64"})
    public int recordsPerBatch;

    private short version;
    private ByteBuf frame;
    private int headerLength;
    private TopologySnapshot snapshot;

    @Setup
    public void setUp() {
        version = ApiKeys.PRODUCE.latestVersion();
        TopicProduceData topic = new TopicProduceData().setName(Frames.TOPIC).setTopicId(Frames.TOPIC_ID);
        for (int p = 0; p < PARTITIONS; p++) {
            topic.partitionData().add(new PartitionProduceData().setIndex(p)
                    .setRecords(Frames.batch(recordsPerBatch, 1024)));
        }
        ProduceRequestData body = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        body.topicData().add(topic);
        frame = Frames.requestFrame(ApiKeys.PRODUCE, version, body);
        headerLength = MessageUtil.toByteBufferAccessor(new RequestHeaderData().setRequestApiKey(ApiKeys.PRODUCE.id)
                .setRequestApiVersion(version).setCorrelationId(7).setClientId("producer-1"),
                ApiKeys.PRODUCE.requestHeaderVersion(version)).buffer().remaining();
        snapshot = Frames.snapshot(PARTITIONS);
    }

    @TearDown
    public void tearDown() {
        frame.release();
    }

    @Benchmark
    public void split(Blackhole parts) {
        RequestFrame request = new RequestFrame(ApiKeys.PRODUCE.id, version, 7, "producer-1", headerLength, frame.retain());
        try {
            ProduceRequestData data = request.decodeBody(ProduceRequestData.class);
            Map<PartitionRef, PartitionProduceData> pending = new LinkedHashMap<>();
            for (TopicProduceData topic : data.topicData()) {
                for (PartitionProduceData p : topic.partitionData()) {
                    pending.put(PartitionRef.of(topic.name(), topic.topicId(), p.index(), snapshot), p);
                }
            }
            for (List<PartitionRef> group : OwnerGroups.of(pending.keySet(), snapshot, OwnerGroups.Refusals.NONE).values()) {
                ProduceRequestData sub = new ProduceRequestData().setAcks(data.acks()).setTimeoutMs(data.timeoutMs());
                Map<PartitionRef.TopicRef, TopicProduceData> topics = new LinkedHashMap<>();
                for (PartitionRef ref : group) {
                    topics.computeIfAbsent(ref.topic(), t -> new TopicProduceData()
                            .setName(t.name() == null ? "" : t.name())
                            .setTopicId(t.topicId() == null ? Uuid.ZERO_UUID : t.topicId()))
                            .partitionData().add(pending.get(ref));
                }
                topics.values().forEach(sub.topicData()::add);
                ByteBuf part = RequestFrames.reencode(request, sub);
                parts.consume(part.readableBytes());
                part.release();
            }
        } finally {
            request.frame().release();
        }
    }
}
