package org.kafscale.proxy.lfs.uploads;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.kafscale.proxy.lfs.Async;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends expired sessions periodically, aborting their S3 uploads, so that an abandoned upload does
 * not keep its parts in the bucket (the original only forgot the session and left the parts to a
 * bucket lifecycle rule). Every replica sweeps; {@link UploadEnder} makes that harmless.
 */
public final class ExpiredUploadSweeper implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(ExpiredUploadSweeper.class);

    private final MultipartUploads uploads;
    private final AtomicBoolean running = new AtomicBoolean();
    private ScheduledFuture<?> task;

    public ExpiredUploadSweeper(MultipartUploads uploads) {
        this.uploads = uploads;
    }

    /**
     * The sweep interval for a session lifetime: often enough that an expired upload does not
     * linger long past its TTL, rarely enough that listing sessions costs nothing noticeable.
     */
    public static Duration intervalFor(Duration sessionTtl) {
        Duration quarter = sessionTtl.dividedBy(4);
        Duration floor = Duration.ofSeconds(1);
        Duration ceiling = Duration.ofMinutes(1);
        return quarter.compareTo(floor) < 0 ? floor : quarter.compareTo(ceiling) > 0 ? ceiling : quarter;
    }

    /** Sweeps every {@code interval} on {@code scheduler}; the sweep itself runs asynchronously. */
    public synchronized void start(ScheduledExecutorService scheduler, Duration interval) {
        task = scheduler.scheduleWithFixedDelay(this::sweep, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        // A slow store must not pile sweeps up behind each other.
        if (!running.compareAndSet(false, true)) {
            return;
        }
        uploads.sweepExpired().whenComplete((ended, error) -> {
            running.set(false);
            if (error != null) {
                LOGGER.warn("lfs upload sweep failed: {}", Async.unwrap(error).toString());
            } else if (ended > 0) {
                LOGGER.info("lfs upload sweep ended {} expired upload(s)", ended);
            }
        });
    }

    @Override
    public synchronized void close() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
