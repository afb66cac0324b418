package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.MessageUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code RequestHeaderDecoder}'s parse of one request header (the body is never read). Lives in the
 * codec package of the bench module because the parse method is package-private.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeaderParseBenchmark {
    @Param({"PRODUCE", "FETCH", "METADATA"})
    public String api;

    private ByteBuf frame;

    @Setup
    public void setUp() {
        ApiKeys key = ApiKeys.valueOf(api);
        short version = key.latestVersion();
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version)
                .setCorrelationId(42).setClientId("consumer-group-1-1");
        ByteBuffer bytes = MessageUtil.toByteBufferAccessor(header, key.requestHeaderVersion(version)).buffer();
        // A header followed by 1 KiB of body, which the parse must not touch.
        frame = ByteBufAllocator.DEFAULT.directBuffer(bytes.remaining() + 1024);
        frame.writeBytes(bytes).writeZero(1024);
    }

    @TearDown
    public void tearDown() {
        frame.release();
    }

    @Benchmark
    public int parse() {
        RequestFrame request = RequestHeaderDecoder.parse(frame);
        request.frame().release();
        return request.correlationId() + request.headerLength();
    }
}
