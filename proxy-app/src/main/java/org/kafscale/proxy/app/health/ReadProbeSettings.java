package org.kafscale.proxy.app.health;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where and how often the readiness probe reads.
 *
 * @param topic the topic to read; empty: any partition that has data
 * @param partition the partition of {@code topic} to read; empty: any of its partitions with data
 * @param interval time between the end of one probe and the start of the next
 */
public record ReadProbeSettings(Optional<String> topic, OptionalInt partition, Duration interval) {
    /** How long one probe may take before it counts as failed. */
    public Duration timeout() {
        return interval.multipliedBy(2).compareTo(MIN_TIMEOUT) < 0 ? MIN_TIMEOUT : interval.multipliedBy(2);
    }

    private static final Duration MIN_TIMEOUT = Duration.ofSeconds(5);
}
