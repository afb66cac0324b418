package org.kafscale.proxy.lfs.limits;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The temp-disk bytes all stream downloads may hold at once. A download reserves its object's size
 * (S3's Content-Length, checked against the claim first) before it copies a byte, and gives it back
 * when its file is deleted. Series: {@code kafscale_lfs_proxy_download_temp_bytes}.
 */
public final class TempBudget {
    private final long capacity;
    private final AtomicLong reserved = new AtomicLong();

    public TempBudget(long capacity, MeterRegistry registry) {
        this.capacity = capacity;
        Gauge.builder("kafscale_lfs_proxy_download_temp_bytes", reserved, AtomicLong::get).baseUnit("bytes")
                .description("Temp-disk bytes reserved by stream downloads").register(registry);
    }

    /** Reserves {@code bytes}; false (nothing reserved) when that would pass the capacity. */
    public boolean tryReserve(long bytes) {
        long now = reserved.get();
        while (now + bytes <= capacity && now + bytes >= 0) {
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
            now = reserved.get();
        }
        return false;
    }

    public void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    public long reserved() {
        return reserved.get();
    }
}
