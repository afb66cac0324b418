package org.kafscale.proxy.bench.proxy;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The highest value one gauge of our proxy reached while a workload ran, sampled every
 * {@link #INTERVAL_MILLIS} ms on a thread of its own. A peak between two samples is missed, so
 * the figure is a lower bound of the true peak. Each sample is a scrape of the proxy's Prometheus
 * page, work charged to the proxy being measured (it was 20 a second in the first runs, and a
 * profile showed the scrapes), so 4 a second: the read-ahead bound it checks is far above any
 * peak, and a missed spike between samples does not change the verdict.
 */
public final class GaugePeak {
    private static final long INTERVAL_MILLIS = 250;

    private GaugePeak() {
    }

    /** The workload's result and the gauge's peak while it ran. */
    public record Watched<T>(T result, double peak) {
    }

    public static <T> Watched<T> during(ProxyCounters proxy, String gauge, Callable<T> workload) throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        double[] peak = {0};
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                try {
                    proxy.gauge(gauge).ifPresent(value -> peak[0] = Math.max(peak[0], value));
                    Thread.sleep(INTERVAL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // a scrape that failed is a sample missed, not a failed round
                }
            }
        }, "bench-gauge-" + gauge);
        sampler.setDaemon(true);
        sampler.start();
        T result;
        try {
            result = workload.call();
        } finally {
            done.set(true);
            sampler.join();
        }
        // read after the join: the sampler's last write is visible, and there is none after it
        return new Watched<>(result, peak[0]);
    }
}
