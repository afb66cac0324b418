package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * {@code ByteBuffer} views of a frame for kafka-clients to parse before the caller returns.
 *
 * <p>{@link ByteBuf#nioBuffer} makes two view objects per call (a duplicate and a slice). Each
 * request is viewed three times on its way (its header, its body, the broker's answer), and those
 * views were the largest single share of the proxy's allocations in a produce profile
 * (docs/benchmarks.md, "Profile"). Netty keeps one internal view per buffer and repositions it on
 * each call, so the view returned here is valid only until the next such call on the same memory:
 * parse it at once, keep nothing of it. Slices a parser takes from it (record sets) are views of
 * their own and stay valid while the frame is.
 */
final class ParseViews {
    private ParseViews() {
    }

    /** The readable bytes of {@code buf}, for parsing now. */
    static ByteBuffer readable(ByteBuf buf) {
        return of(buf, buf.readerIndex(), buf.readableBytes());
    }

    /** {@code length} bytes of {@code buf} from {@code index}, for parsing now. */
    static ByteBuffer of(ByteBuf buf, int index, int length) {
        // A buffer in several pieces (a composite) has no single internal view: it gets a merged copy.
        return buf.nioBufferCount() == 1 ? buf.internalNioBuffer(index, length) : buf.nioBuffer(index, length);
    }
}
