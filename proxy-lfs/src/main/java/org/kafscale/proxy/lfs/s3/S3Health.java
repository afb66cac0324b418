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
 *
 * <p>The check has an S3 client and connections of its own: were it to share the pool of clients'
 * uploads, a pool taken by slow uploads would fail the check and turn LFS 503 for everyone.
 */
public final class S3Health implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(S3Health.class);
    private static final Duration ACQUISITION_TIMEOUT = Duration.ofSeconds(10);

    /** One check at a time; a second connection covers one being replaced. */
    private static final int CONNECTIONS = 2;

    private final S3AsyncClient s3;
    private final String bucket;
    private volatile boolean healthy = true;
    private ScheduledFuture<?> task;

    public S3Health(S3Settings settings) {
        this.s3 = S3Clients.asyncClient(settings, CONNECTIONS, ACQUISITION_TIMEOUT);
        this.bucket = settings.bucket();
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
        s3.close();
    }
}
