package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * Finds the Netty buffer a {@link ByteBuffer} view was taken from, so record bytes that
 * kafka-clients parsed as views of a frame can be written out again as slices of that frame
 * instead of copies.
 *
 * <p>kafka-clients' generated classes read records as {@code ByteBuffer} views and hand back only
 * the view; this maps it back by memory address (direct buffers) or backing array (heap buffers).
 */
public final class FrameSlices {
    private FrameSlices() {
    }

    /**
     * A retained slice of one of {@code owners} covering exactly {@code view}'s remaining bytes,
     * or empty when no owner holds them (the caller then copies).
     */
    public static Optional<ByteBuf> sliceOf(List<ByteBuf> owners, ByteBuffer view) {
        int length = view.remaining();
        for (ByteBuf owner : owners) {
            int index = indexIn(owner, view);
            if (index >= 0 && index + length <= owner.capacity()) {
                return Optional.of(owner.retainedSlice(index, length));
            }
        }
        return Optional.empty();
    }

    /** Where {@code view}'s first remaining byte sits in {@code owner}, or -1 when it is not there. */
    private static int indexIn(ByteBuf owner, ByteBuffer view) {
        if (view.isDirect()) {
            if (!owner.hasMemoryAddress() || !PlatformDependent.hasUnsafe()) {
                return -1;
            }
            long offset = PlatformDependent.directBufferAddress(view) + view.position() - owner.memoryAddress();
            return offset >= 0 && offset <= Integer.MAX_VALUE ? (int) offset : -1;
        }
        if (view.hasArray() && owner.hasArray() && view.array() == owner.array()) {
            int offset = view.arrayOffset() + view.position() - owner.arrayOffset();
            return offset >= 0 ? offset : -1;
        }
        return -1;
    }
}
