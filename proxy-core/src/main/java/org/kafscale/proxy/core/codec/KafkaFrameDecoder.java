package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a byte stream into Kafka frames: a 4-byte big-endian size, then that many bytes.
 *
 * <p>The size is checked before any of the frame is buffered, so an oversized or negative size
 * costs four bytes, not the memory it claims. A bad size cannot be skipped safely (the stream has
 * no resynchronisation point), so the connection is closed with one log line that says why.
 *
 * <p>Each emitted frame is a retained slice of the cumulation buffer (no copy); the size prefix is
 * not part of it. A frame that spans reads is gathered into one buffer of its own size
 * ({@link FrameCumulator}). Outbound, {@link io.netty.handler.codec.LengthFieldPrepender} is the one layer
 * that writes sizes.
 */
public final class KafkaFrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaFrameDecoder.class);
    private static final int SIZE_FIELD_BYTES = 4;

    private final int maxFrameBytes;
    private final String peer;
    private final FrameCumulator cumulator;
    private boolean rejected;

    /**
     * A decoder for an untrusted peer (a client): nothing is reserved ahead of the bytes that
     * arrive.
     *
     * @param maxFrameBytes the largest frame accepted, not counting the size field
     * @param peer who sends these frames ("client", "broker 2"), for log lines
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peer) {
        this(maxFrameBytes, peer, 0);
    }

    /**
     * @param presizeLimitBytes the largest frame gathered into a buffer reserved whole as soon as
     *                          its size is known (brokers: {@code maxFrameBytes})
     */
    public KafkaFrameDecoder(int maxFrameBytes, String peer, int presizeLimitBytes) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.peer = peer;
        this.cumulator = new FrameCumulator(presizeLimitBytes);
        setCumulator(cumulator);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (rejected) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < SIZE_FIELD_BYTES) {
            return;
        }
        int size = in.getInt(in.readerIndex());
        String problem = sizeProblem(size);
        if (problem != null) {
            rejected = true;
            in.skipBytes(in.readableBytes());
            LogFields.of(ctx.channel()).addTo(LOGGER.atWarn()).log("Closing connection from {} {}: {}", peer,
                    ClientAddress.of(ctx.channel()), problem);
            ctx.close();
            return;
        }
        // Written as a difference: SIZE_FIELD_BYTES + size overflows for sizes near Integer.MAX_VALUE.
        if (in.readableBytes() - SIZE_FIELD_BYTES < size) {
            cumulator.expect(size);
            return;
        }
        cumulator.expect(0);
        in.skipBytes(SIZE_FIELD_BYTES);
        out.add(in.readRetainedSlice(size));
    }

    /**
     * Bytes buffered towards the next frame (read after the last frame handed on). Valid between
     * reads, on the channel's event loop.
     */
    public int partialFrameBytes() {
        ByteBuf buffered = internalBuffer();
        return rejected ? 0 : buffered.readableBytes();
    }

    /**
     * A read that ends one frame and starts the next is handed on in two: the end of the frame,
     * then the rest. The frame under way then fills the buffer set aside for it, and the next
     * frame starts in the read's own buffer ({@link FrameCumulator}); a frame is never copied
     * into a larger buffer for the sake of the bytes that follow it. (Costs a retained slice of
     * the read's buffer per such read, no copy.)
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        int missing = missingFrameBytes();
        if (missing <= 0 || !(msg instanceof ByteBuf in) || in.readableBytes() <= missing) {
            super.channelRead(ctx, msg);
            return;
        }
        ByteBuf end = in.readRetainedSlice(missing);
        try {
            super.channelRead(ctx, end);
        } catch (Exception | Error e) {
            in.release();
            throw e;
        }
        if (ctx.isRemoved()) {
            ctx.fireChannelRead(in);
        } else {
            super.channelRead(ctx, in);
        }
    }

    /** Bytes the frame under way still needs (0 when none is under way or its size is not known yet). */
    private int missingFrameBytes() {
        int expected = cumulator.expectedBodyBytes();
        if (expected == 0 || rejected) {
            return 0;
        }
        return (int) Math.min(Integer.MAX_VALUE, SIZE_FIELD_BYTES + (long) expected - internalBuffer().readableBytes());
    }

    private String sizeProblem(int size) {
        if (size < 0) {
            return "frame size " + size + " is negative";
        }
        if (size > maxFrameBytes) {
            return "frame size " + size + " bytes exceeds the maximum of " + maxFrameBytes + " bytes";
        }
        return null;
    }
}
