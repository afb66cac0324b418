package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.testkit.RecordingAllocator;
import org.slf4j.LoggerFactory;

/**
 * Coverage-guided fuzzing of what a client's bytes meet first: {@link KafkaFrameDecoder} then
 * {@link RequestHeaderDecoder}, in one pipeline as a listener has them, fed in reads of the sizes
 * the fuzzer picks.
 *
 * <p>Whatever arrives, the documented outcomes are the only ones: frames handed on as
 * {@link RequestFrame}s whose header lies inside the frame, or the connection closed (a bad size,
 * a header that does not parse). No exception reaches the end of the pipeline, every buffer is
 * released once the channel is done, and the decoder never holds more bytes than the client sent
 * (a claimed size reserves nothing).
 *
 * <p>The default test run replays the saved inputs under {@code ClientFramesFuzzTestInputs/};
 * {@code scripts/fuzz.sh} fuzzes.
 */
class ClientFramesFuzzTest {
    /** Small, so that the fuzzer reaches the oversize check and whole frames alike. */
    private static final int MAX_FRAME_BYTES = 4096;
    private static final RateLimitedLog REJECTIONS =
            RateLimitedLog.every10Seconds(LoggerFactory.getLogger(ClientFramesFuzzTest.class));

    @FuzzTest
    void clientBytesBecomeFramesOrACloseAndNothingLeaks(FuzzedDataProvider data) {
        RecordingAllocator allocator = new RecordingAllocator();
        KafkaFrameDecoder frames = new KafkaFrameDecoder(MAX_FRAME_BYTES, "client");
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator);
        channel.pipeline().addLast(frames, new RequestHeaderDecoder(REJECTIONS));
        long sent = 0;
        try {
            while (data.remainingBytes() > 0 && channel.isOpen()) {
                byte[] read = data.consumeBytes(data.consumeInt(1, 2 * MAX_FRAME_BYTES));
                sent += read.length;
                ByteBuf in = allocator.buffer(read.length).writeBytes(read);
                channel.writeInbound(in);
                for (Object frame; (frame = channel.readInbound()) != null; ) {
                    RequestFrame request = (RequestFrame) frame;
                    try {
                        assertTrue(request.headerLength() <= request.frame().readableBytes(),
                                "the header lies inside its frame: " + request.describe());
                    } finally {
                        request.frame().release();
                    }
                }
                if (channel.isOpen()) {
                    assertTrue(frames.partialFrameBytes() <= sent, "the decoder holds no more than the client sent");
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        allocator.assertAllReleasedAndReset();
    }
}
