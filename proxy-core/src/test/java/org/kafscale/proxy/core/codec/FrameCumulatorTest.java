package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How {@link KafkaFrameDecoder} gathers a frame that spans reads ({@link FrameCumulator}): in one
 * buffer of the frame's size when the peer is trusted with it, never reserving a client's claimed
 * size past the client limit, and never writing into a buffer an earlier frame still shares.
 */
class FrameCumulatorTest {
    private final RecordingAllocator allocator = new RecordingAllocator();
    private EmbeddedChannel channel;

    @AfterEach
    void releaseEverything() {
        channel.finishAndReleaseAll();
    }

    @Test
    void brokerFrameSpanningReadsGrowsTheBufferOnceToTheFrameSize() {
        // Given a broker decoder and a frame of 1000 bytes whose first read holds 100
        channel = decoder(new KafkaFrameDecoder(1 << 20, "broker 1", 1 << 20));
        byte[] body = bytes(1000);

        // When the rest arrives in reads of 100 bytes
        feedInPieces(frame(body), 104, 100);

        // Then one buffer of exactly the frame's size was reserved and the frame is whole
        assertEquals(List.of(1004), allocator.requested);
        assertArrayEquals(body, readFrame());
    }

    @Test
    void brokerFrameWhoseLastReadStartsTheNextFrameIsNotCopiedIntoALargerBuffer() {
        // Given a broker decoder and two pipelined frames of 1000 bytes
        channel = decoder(new KafkaFrameDecoder(1 << 20, "broker 1", 1 << 20));
        byte[] one = bytes(1000);
        byte[] two = bytes(1000);
        byte[] wire = new byte[2008];
        System.arraycopy(frame(one), 0, wire, 0, 1004);
        System.arraycopy(frame(two), 0, wire, 1004, 1004);

        // When they arrive in reads of 160 bytes, one of which ends the first and starts the second
        feedInPieces(wire, 104, 160);

        // Then each frame got one buffer of its own size, none twice the frame for the bytes after it
        assertEquals(List.of(1004, 1004), allocator.requested);
        assertArrayEquals(one, readFrame());
        assertArrayEquals(two, readFrame());
    }

    @Test
    void clientClaimingMoreThanTheLimitDoesNotMakeTheProxyReserveIt() {
        // Given a client decoder that accepts frames up to 64 MiB
        channel = decoder(new KafkaFrameDecoder(64 << 20, "client"));

        // When a client claims a 32 MiB frame and sends only a few bytes of it in two reads
        ByteBuf first = Unpooled.wrappedBuffer(Unpooled.buffer(8).writeInt(32 << 20).writeInt(7));
        channel.writeInbound(first);
        channel.writeInbound(Unpooled.wrappedBuffer(bytes(16)));

        // Then the buffer grew by what arrived, not to the claimed size
        assertNull(channel.readInbound());
        assertTrue(allocator.requested.stream().allMatch(n -> n <= 64),
                "requested " + allocator.requested);
    }

    /** The security review's H1 probe: a 1 MiB size, 2044 bytes, then 100 more, on one connection. */
    @Test
    void clientFrameOfAMiBIsNotReservedWholeWhenOnly2KBOfItHaveArrived() {
        // Given a client decoder with the default frame limit
        channel = decoder(new KafkaFrameDecoder(100 << 20, "client"));

        // When a client claims a 1 MiB frame and sends 2044 bytes of it, then 100 more
        channel.writeInbound(Unpooled.wrappedBuffer(Unpooled.buffer(2048).writeInt(1 << 20).writeZero(2044)));
        channel.writeInbound(Unpooled.wrappedBuffer(bytes(100)));

        // Then the buffer holds about what arrived, not the megabyte claimed
        assertNull(channel.readInbound());
        assertTrue(allocator.requested.stream().allMatch(n -> n <= 4096), "requested " + allocator.requested);
    }

    @Test
    void clientFrameSpanningReadsGrowsWithItsBytesAndNeverPastItsSize() {
        // Given a client decoder and a frame of 1000 bytes whose first read holds 100
        channel = decoder(new KafkaFrameDecoder(1 << 20, "client"));
        byte[] body = bytes(1000);

        // When the rest arrives in reads of 100 bytes
        feedInPieces(frame(body), 104, 100);

        // Then no buffer was larger than the frame, and the frame is whole
        assertTrue(allocator.requested.stream().allMatch(n -> n <= 1004), "requested " + allocator.requested);
        assertArrayEquals(body, readFrame());
    }

    @Test
    void aFrameStillHeldIsNotOverwrittenByTheNextFramesBytes() {
        // Given a first frame emitted and still held (its buffer is shared) and the start of a second in the same read
        channel = decoder(new KafkaFrameDecoder(1 << 20, "broker 1", 1 << 20));
        byte[] one = bytes(50);
        byte[] two = bytes(300);
        ByteBuf wire = Unpooled.buffer().writeBytes(frame(one)).writeBytes(frame(two));
        channel.writeInbound(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(wire, 0, 54 + 60)));
        ByteBuf held = channel.readInbound();

        // When the rest of the second frame arrives
        channel.writeInbound(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(wire, 54 + 60, wire.readableBytes() - 54 - 60)));
        wire.release();

        // Then both frames are intact
        try {
            assertArrayEquals(one, ByteBufUtil.getBytes(held));
        } finally {
            held.release();
        }
        assertArrayEquals(two, readFrame());
    }

    private EmbeddedChannel decoder(KafkaFrameDecoder decoder) {
        EmbeddedChannel embedded = new EmbeddedChannel();
        embedded.config().setAllocator(allocator);
        embedded.pipeline().addLast(decoder);
        return embedded;
    }

    /** Writes {@code wire} as a first read of {@code firstBytes}, then reads of {@code pieceBytes}. */
    private void feedInPieces(byte[] wire, int firstBytes, int pieceBytes) {
        channel.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, 0, firstBytes)));
        for (int offset = firstBytes; offset < wire.length; offset += pieceBytes) {
            channel.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, offset,
                    Math.min(wire.length, offset + pieceBytes))));
        }
    }

    private byte[] readFrame() {
        ByteBuf frame = channel.readInbound();
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }

    private static byte[] frame(byte[] body) {
        ByteBuf wire = Unpooled.buffer().writeInt(body.length).writeBytes(body);
        try {
            return ByteBufUtil.getBytes(wire);
        } finally {
            wire.release();
        }
    }

    private static byte[] bytes(int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = (byte) (i * 31 + 7);
        }
        return out;
    }

    /** Records the capacity of every buffer the decoder asks for. */
    private static final class RecordingAllocator extends AbstractByteBufAllocator {
        final List<Integer> requested = new ArrayList<>();

        RecordingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            requested.add(initialCapacity);
            return Unpooled.buffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            requested.add(initialCapacity);
            return Unpooled.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }
}
