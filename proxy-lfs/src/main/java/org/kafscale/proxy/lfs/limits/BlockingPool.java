package org.kafscale.proxy.lfs.limits;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.lfs.http.LfsException;

/**
 * The LFS module's executor for blocking work (temp files, the download copy, S3 request signing),
 * never an event loop. Threads and queue are bounded; a task past the queue is refused with a
 * {@link RejectedExecutionException} whose cause is the 503 {@code busy} answer, so a route that
 * meets it answers busy instead of 500.
 */
public final class BlockingPool {
    /** Tasks waiting for a thread; the route gates keep the real number far below. */
    static final int QUEUE = 4096;
    private static final long KEEP_ALIVE_SECONDS = 60;

    private BlockingPool() {
    }

    public static ExecutorService create(int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(QUEUE), new DefaultThreadFactory("lfs-blocking", true),
                (task, executor) -> {
                    throw new RejectedExecutionException("the LFS blocking pool is full",
                            new LfsException(503, "busy", "the proxy is busy; retry later"));
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
