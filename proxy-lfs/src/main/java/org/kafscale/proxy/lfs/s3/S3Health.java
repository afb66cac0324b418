package org.kafscale.proxy.lfs.s3;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Whether S3 answers, from a periodic HeadBucket (spec §4.1). Starts healthy; while unhealthy
 * every {@code /lfs/*} request gets 503 {@code proxy_not_ready}. Transitions are logged.
 */
public final class S3Health implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(S3Health.class);

    private final S3AsyncClient s3;
    private final String bucket;
    private volatile boolean healthy = true;
    private ScheduledFuture<?> task;

    public S3Health(S3AsyncClient s3, String bucket) {
        this.s3 = s3;
        this.bucket = bucket;
    }

    /** Checks every {@code interval} on {@code scheduler} (the check itself is asynchronous). */
    public void start(ScheduledExecutorService scheduler, Duration interval) {
        task = scheduler.scheduleWithFixedDelay(this::check, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    public boolean healthy() {
        return healthy;
    }

    /** Sets the flag directly (tests; an operator override). */
    public void set(boolean value) {
        if (healthy != value) {
            LOGGER.warn("S3 bucket {} is now {}", bucket, value ? "healthy" : "unhealthy");
        }
        healthy = value;
    }

    private void check() {
        s3.headBucket(b -> b.bucket(bucket)).whenComplete((ok, error) -> set(error == null));
    }

    @Override
    public void close() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
