package org.kafscale.proxy.core.server;

import io.netty.buffer.PooledByteBufAllocator;

/**
 * The buffer allocator of every Kafka channel, client and broker side: Netty's pooled allocator
 * with chunks large enough to pool whole frames.
 *
 * <p>A frame that spans reads is gathered into one buffer of its own size, and Kafka frames are
 * large: a Produce of up to a MiB, a broker's Fetch answer of several. Netty 4.2's default
 * (adaptive) allocator pools buffers up to about a MiB and the classic pooled one up to its 4 MiB
 * chunk; anything bigger is a fresh allocation, zeroed, page-faulted in and unmapped again on
 * every frame. The benchmark's profile of the proxy showed that as a tenth of its CPU. With
 * 16 MiB chunks (page 8 KiB, order 11) every frame up to 16 MiB comes from the pool; each
 * arena holds its chunks for reuse, which the {@code kafscale_proxy_netty_pooled_direct_memory}
 * gauge shows.
 */
public final class FrameBuffers {
    private static final int PAGE_BYTES = 8192;
    /** Chunk = page << order: 16 MiB. */
    private static final int MAX_ORDER = 11;

    private static final PooledByteBufAllocator ALLOCATOR = new PooledByteBufAllocator(true, 0,
            PooledByteBufAllocator.defaultNumDirectArena(), PAGE_BYTES, MAX_ORDER,
            PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
            PooledByteBufAllocator.defaultUseCacheForAllThreads());

    private FrameBuffers() {
    }

    public static PooledByteBufAllocator allocator() {
        return ALLOCATOR;
    }
}
