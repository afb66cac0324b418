package org.kafscale.proxy.bench.workload;

import org.HdrHistogram.Histogram;

/** Percentiles of one latency run, in milliseconds. */
public record LatencyStats(long count, double p50, double p99, double p999, double max) {
    /** Highest latency recorded: anything slower is a failed run, not a data point. */
    static final long HIGHEST_MICROS = 120_000_000L;

    public static Histogram newHistogram() {
        return new Histogram(HIGHEST_MICROS, 3);
    }

    public static LatencyStats of(Histogram microseconds) {
        return new LatencyStats(microseconds.getTotalCount(),
                microseconds.getValueAtPercentile(50) / 1000.0,
                microseconds.getValueAtPercentile(99) / 1000.0,
                microseconds.getValueAtPercentile(99.9) / 1000.0,
                microseconds.getMaxValue() / 1000.0);
    }
}
