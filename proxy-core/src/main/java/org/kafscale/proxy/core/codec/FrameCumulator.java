package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Netty's merge cumulator, except that a buffer which must grow grows once to hold the whole
 * frame being read, whose size {@link KafkaFrameDecoder} already knows.
 *
 * <p>A broker's Fetch answer of several MiB arrives in reads of at most 64 KiB. Netty's own
 * cumulator grows by powers of two and copies everything buffered at each step: about one extra
 * copy of every byte, and a buffer up to twice the frame. Here the second read allocates the frame's
 * size once and every later read is copied straight into it.
 *
 * <p>Like Netty's, it copies into the buffer in place only when nothing else holds it: frames
 * already handed on are retained slices of it, and kafka-clients reads them through
 * {@code ByteBuffer} views that must keep seeing the same memory.
 */
final class FrameCumulator implements ByteToMessageDecoder.Cumulator {
    /** Bytes of the frame being read, size field included; 0 when unknown. */
    private int expectedBytes;

    void expect(int frameBytes) {
        expectedBytes = frameBytes;
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
            ByteBuf grown = alloc.buffer(Math.max(required, expectedBytes));
            grown.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
            grown.writeBytes(in, in.readerIndex(), in.readableBytes());
            in.readerIndex(in.writerIndex());
            cumulation.release();
            return grown;
        } finally {
            in.release();
        }
    }
}
