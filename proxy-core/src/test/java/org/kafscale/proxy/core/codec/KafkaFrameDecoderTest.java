package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The framing layer: a 4-byte big-endian size, then that many bytes. These tests are about the
 * size field itself, so they write it by hand; frame contents are arbitrary bytes.
 */
class KafkaFrameDecoderTest {

    private static final int MAX_FRAME_BYTES = 16;

    private EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(MAX_FRAME_BYTES, "client"));

    @AfterEach
    void releaseEverything() {
        channel.finishAndReleaseAll();
    }

    @Test
    void frameSplitOverSeveralReadsIsEmittedOnceWholeWithoutItsSizePrefix() {
        // Given a frame whose size field and body each arrive in pieces
        byte[] body = "hello kafka".getBytes(StandardCharsets.US_ASCII);
        ByteBuf wire = Unpooled.buffer().writeInt(body.length).writeBytes(body);
        ByteBuf first = wire.readRetainedSlice(2);
        ByteBuf second = wire.readRetainedSlice(5);
        ByteBuf rest = wire.readRetainedSlice(wire.readableBytes());
        wire.release();

        // When the pieces arrive one read at a time
        channel.writeInbound(first);
        Object afterFirst = channel.readInbound();
        channel.writeInbound(second);
        Object afterSecond = channel.readInbound();
        channel.writeInbound(rest);

        // Then nothing is emitted until the frame is whole, and then exactly the body
        assertNull(afterFirst);
        assertNull(afterSecond);
        assertArrayEquals(body, readFrame());
        assertNull(channel.readInbound());
    }

    @Test
    void twoFramesInOneReadAreEmittedAsTwoMessages() {
        // Given two frames in one buffer
        byte[] one = "first".getBytes(StandardCharsets.US_ASCII);
        byte[] two = "second".getBytes(StandardCharsets.US_ASCII);
        ByteBuf wire = Unpooled.buffer().writeInt(one.length).writeBytes(one).writeInt(two.length).writeBytes(two);

        // When they arrive in one read
        channel.writeInbound(wire);

        // Then each is emitted on its own, in order
        assertArrayEquals(one, readFrame());
        assertArrayEquals(two, readFrame());
        assertNull(channel.readInbound());
    }

    @Test
    void frameOfExactlyTheMaximumSizePasses() {
        // Given a frame of exactly the maximum size
        byte[] body = new byte[MAX_FRAME_BYTES];
        body[0] = 1;
        body[MAX_FRAME_BYTES - 1] = 2;

        // When it arrives
        channel.writeInbound(Unpooled.buffer().writeInt(body.length).writeBytes(body));

        // Then it is emitted and the connection stays open
        assertArrayEquals(body, readFrame());
        assertTrue(channel.isOpen());
    }

    @Test
    void sizeOneByteAboveTheMaximumClosesTheChannelBeforeTheBodyArrives() {
        // Given only the size field of a frame one byte too large
        ByteBuf sizeOnly = Unpooled.buffer().writeInt(MAX_FRAME_BYTES + 1);

        // When it arrives
        channel.writeInbound(sizeOnly);

        // Then the connection is closed at once and nothing is emitted
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
    }

    @Test
    void negativeSizeClosesTheChannel() {
        // Given a negative size field
        ByteBuf sizeOnly = Unpooled.buffer().writeInt(-1);

        // When it arrives
        channel.writeInbound(sizeOnly);

        // Then the connection is closed and nothing is emitted
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
    }

    @Test
    void bytesInTheSameReadAfterARejectedSizeAreDiscarded() {
        // Given an oversized frame followed, in the same read, by a well-formed one
        byte[] valid = "abc".getBytes(StandardCharsets.US_ASCII);
        ByteBuf wire = Unpooled.buffer()
                .writeInt(MAX_FRAME_BYTES + 1).writeBytes(new byte[MAX_FRAME_BYTES + 1])
                .writeInt(valid.length).writeBytes(valid);

        // When it arrives
        channel.writeInbound(wire);

        // Then none of it is emitted
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
    }

    @Test
    void bytesReadAfterARejectedSizeAreDiscardedWhileTheCloseIsPending() {
        // Given a pipeline whose close has not taken effect yet (a handler holds the close back)
        CloseRecorder closeRecorder = new CloseRecorder();
        channel.finishAndReleaseAll();
        channel = new EmbeddedChannel(closeRecorder, new KafkaFrameDecoder(MAX_FRAME_BYTES, "client"));
        channel.writeInbound(Unpooled.buffer().writeInt(-5));
        byte[] valid = "abc".getBytes(StandardCharsets.US_ASCII);

        // When a well-formed frame arrives in a later read
        channel.writeInbound(Unpooled.buffer().writeInt(valid.length).writeBytes(valid));

        // Then the decoder asked for the close once and emits nothing
        assertEquals(1, closeRecorder.closeRequests);
        assertNull(channel.readInbound());
        channel.pipeline().remove(closeRecorder);
    }

    /**
     * BUG (reported, left failing on purpose): with the largest configurable maximum
     * ({@code KAFSCALE_PROXY_MAX_FRAME_BYTES=2147483647}, which the config accepts), a size in
     * [Integer.MAX_VALUE - 3, Integer.MAX_VALUE] passes the size check, then
     * {@code SIZE_FIELD_BYTES + size} overflows to a negative number, so "not enough bytes yet" is
     * false, and {@code readRetainedSlice(size)} throws IndexOutOfBoundsException out of the decoder
     * (a DecoderException through the pipeline) instead of the decoder waiting or closing with its
     * own log line.
     */
    @Test
    void frameSizeNearIntegerMaxValueWaitsForItsBodyWithoutOverflowing() {
        // Given a decoder configured with the largest maximum the configuration accepts
        channel.finishAndReleaseAll();
        channel = new EmbeddedChannel(new KafkaFrameDecoder(Integer.MAX_VALUE, "client"));

        // When only the size field of a frame of Integer.MAX_VALUE - 1 bytes arrives
        ByteBuf sizeOnly = Unpooled.buffer().writeInt(Integer.MAX_VALUE - 1);

        // Then the decoder does not fail on it (it waits or rejects the size) and emits nothing
        assertDoesNotThrow(() -> channel.writeInbound(sizeOnly));
        assertNull(channel.readInbound());
    }

    /** Copies and releases the next emitted frame. */
    private byte[] readFrame() {
        ByteBuf frame = channel.readInbound();
        if (frame == null) {
            throw new AssertionError("expected a frame, none was emitted");
        }
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }

    /** Records close requests without passing them on, so the channel stays open. */
    private static final class CloseRecorder extends ChannelOutboundHandlerAdapter {
        int closeRequests;

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            closeRequests++;
            promise.setSuccess();
        }
    }
}
