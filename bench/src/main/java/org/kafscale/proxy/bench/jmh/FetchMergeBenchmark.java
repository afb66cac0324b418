package org.kafscale.proxy.bench.jmh;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.ResponseHeader;
import org.kafscale.proxy.core.codec.ResponseFrames;
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
 * The Fetch merge of single advertise mode: three brokers' answers (four partitions each) parsed
 * as views of their frames, merged in request order, and encoded with
 * {@link ResponseFrames#encode(ApiKeys, short, int, org.apache.kafka.common.protocol.ApiMessage, List)},
 * whose record sets become slices of the broker frames ({@code FrameSlices}), not copies.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FetchMergeBenchmark {
    private static final int PARTITIONS = 12;

    /** Records of 1 KiB per partition in each answer. */
    @Param({"1", "64"})
    public int recordsPerPartition;

    private short version;
    private final List<ByteBuf> answers = new ArrayList<>();

    @Setup
    public void setUp() {
        version = ApiKeys.FETCH.latestVersion();
        for (int broker = 0; broker < Frames.BROKERS; broker++) {
            FetchableTopicResponse topic = new FetchableTopicResponse().setTopic(Frames.TOPIC).setTopicId(Frames.TOPIC_ID);
            for (int p = broker; p < PARTITIONS; p += Frames.BROKERS) {
                topic.partitions().add(new PartitionData().setPartitionIndex(p).setHighWatermark(1_000_000)
                        .setLastStableOffset(1_000_000).setLogStartOffset(0)
                        .setRecords(Frames.batch(recordsPerPartition, 1024)));
            }
            FetchResponseData body = new FetchResponseData();
            body.responses().add(topic);
            answers.add(Frames.responseFrame(ApiKeys.FETCH, version, broker, body));
        }
    }

    @TearDown
    public void tearDown() {
        answers.forEach(ByteBuf::release);
    }

    @Benchmark
    public void merge(Blackhole merged) {
        TreeMap<Integer, PartitionData> byPartition = new TreeMap<>();
        for (ByteBuf answer : answers) {
            ByteBuffer view = answer.nioBuffer();
            ResponseHeader.parse(view, ApiKeys.FETCH.responseHeaderVersion(version));
            FetchResponseData data = new FetchResponseData(new ByteBufferAccessor(view), version);
            for (FetchableTopicResponse topic : data.responses()) {
                topic.partitions().forEach(p -> byPartition.put(p.partitionIndex(), p));
            }
        }
        FetchableTopicResponse topic = new FetchableTopicResponse().setTopic(Frames.TOPIC).setTopicId(Frames.TOPIC_ID);
        topic.partitions().addAll(byPartition.values());
        FetchResponseData response = new FetchResponseData();
        response.responses().add(topic);
        ByteBuf encoded = ResponseFrames.encode(ApiKeys.FETCH, version, 7, response, answers);
        merged.consume(encoded.readableBytes());
        encoded.release();
    }
}
