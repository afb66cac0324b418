package org.kafscale.proxy.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code KafkaFrameDecoder} on a stream of frames arriving in socket-sized reads: one operation
 * is 1 MiB of stream (size prefixes included) fed in 64 KiB reads, every emitted frame released.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FrameDecodeBenchmark {
    private static final int STREAM_BYTES = 1024 * 1024;
    private static final int READ_BYTES = 64 * 1024;

    @Param({"1024", "65536", "1048572"})
    public int frameBytes;

    private ByteBuf stream;
    private EmbeddedChannel channel;

    @Setup(Level.Trial)
    public void setUp() {
        stream = ByteBufAllocator.DEFAULT.directBuffer(STREAM_BYTES);
        while (stream.writableBytes() >= 4 + frameBytes) {
            stream.writeInt(frameBytes);
            stream.writeZero(frameBytes);
        }
        channel = new EmbeddedChannel(new KafkaFrameDecoder(2 * STREAM_BYTES, "bench"));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
        stream.release();
    }

    @Benchmark
    public void decode(Blackhole frames) {
        for (int offset = 0; offset < stream.writerIndex(); offset += READ_BYTES) {
            int length = Math.min(READ_BYTES, stream.writerIndex() - offset);
            channel.writeInbound(stream.retainedSlice(offset, length));
            ByteBuf frame;
            while ((frame = channel.readInbound()) != null) {
                frames.consume(frame.readableBytes());
                frame.release();
            }
        }
    }
}
