package org.kafscale.proxy.bench.soak;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How long the soak runs and how hard, from system properties ({@code scripts/soak.sh} passes
 * {@code --minutes N} as {@code -Dsoak.minutes=N}).
 *
 * @param seed chooses the chaos events and their timing; the same seed gives the same sequence
 * @param chaosEvery the gap between two chaos events is drawn from this range
 * @param recordsPerSecond what each producer sends (open loop, keyed, acks=all, idempotent)
 */
record SoakSettings(Duration duration, long seed, Duration chaosMin, Duration chaosMax, int recordsPerSecond,
                    Duration recoveryBound, Path resultsDir, String commit) {

    static SoakSettings fromSystemProperties() {
        return new SoakSettings(
                Duration.ofSeconds(Math.round(Double.parseDouble(System.getProperty("soak.minutes", "30")) * 60)),
                Long.getLong("soak.seed", System.currentTimeMillis()),
                Duration.ofSeconds(Integer.getInteger("soak.chaosMinSeconds", 20)),
                Duration.ofSeconds(Integer.getInteger("soak.chaosMaxSeconds", 60)),
                Integer.getInteger("soak.recordsPerSecond", 200),
                Duration.ofSeconds(Integer.getInteger("soak.recoverySeconds", 60)),
                Path.of(System.getProperty("soak.resultsDir", "bench/results")),
                System.getProperty("bench.commit", "unknown"));
    }
}
