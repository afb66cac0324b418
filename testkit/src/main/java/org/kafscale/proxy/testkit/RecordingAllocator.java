package org.kafscale.proxy.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpooled heap allocator that remembers every buffer it hands out, so a test can check that all of
 * them were released at a point of its choosing.
 *
 * <p>Netty's leak detector reports a leak only after the buffer has been garbage-collected, and the
 * testkit's {@link NettyLeakDetectionExtension} checks once per test class. A fuzz target runs
 * thousands of inputs in one test; with this allocator each input checks its own buffers at once
 * and the failing input is the one that leaked.
 */
public final class RecordingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> handedOut = new ArrayList<>();

    public RecordingAllocator() {
        super(false);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    @Override
    protected synchronized ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return remember(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity));
    }

    @Override
    protected synchronized ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return remember(new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity));
    }

    private ByteBuf remember(ByteBuf buffer) {
        handedOut.add(buffer);
        return buffer;
    }

    /** Bytes of capacity held by buffers handed out and not yet released. */
    public synchronized long heldBytes() {
        long held = 0;
        for (ByteBuf buffer : handedOut) {
            if (buffer.refCnt() > 0) {
                held += buffer.capacity();
            }
        }
        return held;
    }

    /**
     * Throws if a buffer handed out since the last call is still referenced, then forgets them
     * all (so the next input starts clean).
     */
    public synchronized void assertAllReleasedAndReset() {
        List<String> unreleased = new ArrayList<>();
        for (ByteBuf buffer : handedOut) {
            if (buffer.refCnt() > 0) {
                unreleased.add(buffer.capacity() + " bytes, refCnt " + buffer.refCnt());
            }
        }
        handedOut.clear();
        if (!unreleased.isEmpty()) {
            throw new AssertionError(unreleased.size() + " buffer(s) not released: " + unreleased);
        }
    }
}
