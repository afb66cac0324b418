package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Netty's merge cumulator, except that a buffer which must grow grows once to hold the whole
 * frame being read, whose size {@link KafkaFrameDecoder} already knows, up to a limit.
 *
 * <p>A broker's Fetch answer of several MiB arrives in reads of at most 64 KiB. Netty's own
 * cumulator grows by powers of two and copies everything buffered at each step: about one extra
 * copy of every byte, and a buffer up to twice the frame. Here the second read allocates the
 * frame's size once and every later read is copied straight into it.
 *
 * <p>The limit is what a peer may make the proxy reserve with four bytes: brokers are trusted
 * with their whole frame; clients with nothing ({@code 0}). A client's buffer grows by doubling as
 * bytes actually arrive, never past its frame, so a client that claims a large frame and sends a
 * few bytes of it holds a few bytes. (A Kafka broker reserves a whole request's size once it has
 * read the size; at the edge, with no authentication, that lets 2 KB per connection pin a MiB.)
 *
 * <p>A read that holds the end of one frame and the start of the next is split before it gets
 * here ({@link KafkaFrameDecoder#channelRead}): the frame's own buffer takes its end, and the
 * next frame starts in the read's buffer. Handed whole, it would not fit the frame's buffer, and
 * the buffer would be copied into one twice the frame's size, which the frame then kept while it
 * waited for its client.
 *
 * <p>Like Netty's, it copies into the buffer in place only when nothing else holds it: frames
 * already handed on are retained slices of it, and kafka-clients reads them through
 * {@code ByteBuffer} views that must keep seeing the same memory.
 */
final class FrameCumulator implements ByteToMessageDecoder.Cumulator {
    private final int limitBytes;
    private static final int SIZE_FIELD_BYTES = 4;
    /** Body bytes of the frame being read; 0 when no frame is under way. */
    private int expectedBodyBytes;

    FrameCumulator(int limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** The frame being read has a body of {@code bodyBytes} (0: no frame under way). */
    void expect(int bodyBytes) {
        expectedBodyBytes = bodyBytes;
    }

    /** Body bytes of the frame being read; 0 when no frame is under way. */
    int expectedBodyBytes() {
        return expectedBodyBytes;
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (!cumulation.isReadable() && in.isContiguous()) {
            // Nothing buffered: the read buffer becomes the cumulation, no copy.
            cumulation.release();
            return in;
        }
        try {
            int required = cumulation.readableBytes() + in.readableBytes();
            if (cumulation.refCnt() == 1 && !cumulation.isReadOnly() && in.readableBytes() <= cumulation.writableBytes()) {
                cumulation.writeBytes(in, in.readerIndex(), in.readableBytes());
                in.readerIndex(in.writerIndex());
                return cumulation;
            }
            ByteBuf grown = alloc.buffer(capacityFor(alloc, required));
            grown.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
            grown.writeBytes(in, in.readerIndex(), in.readableBytes());
            in.readerIndex(in.writerIndex());
            cumulation.release();
            return grown;
        } finally {
            in.release();
        }
    }

    /**
     * The whole frame when it is within the limit (and fits an int), else Netty's doubling, capped
     * at the frame when its size is known.
     */
    private int capacityFor(ByteBufAllocator alloc, int required) {
        long frameBytes = SIZE_FIELD_BYTES + (long) expectedBodyBytes;
        boolean known = expectedBodyBytes > 0 && frameBytes >= required && frameBytes <= Integer.MAX_VALUE;
        if (known && expectedBodyBytes <= limitBytes) {
            return (int) frameBytes;
        }
        return alloc.calculateNewCapacity(required, known ? (int) frameBytes : Integer.MAX_VALUE);
    }
}
