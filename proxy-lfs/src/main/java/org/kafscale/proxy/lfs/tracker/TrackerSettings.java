package org.kafscale.proxy.lfs.tracker;

import java.time.Duration;

/**
 * The ops tracker (spec §4.13).
 *
 * @param enabled whether events are produced at all
 * @param topic the events topic, {@code __lfs_ops_state}
 * @param batchSize events per produce
 * @param flushInterval the longest an event waits for its batch
 * @param ensureTopic create the topic at start-up (an existing one is fine)
 * @param partitions partitions when creating it
 * @param replicationFactor replication factor when creating it
 */
public record TrackerSettings(boolean enabled, String topic, int batchSize, Duration flushInterval,
                              boolean ensureTopic, int partitions, short replicationFactor) {
    public static final String DEFAULT_TOPIC = "__lfs_ops_state";

    public static TrackerSettings defaults() {
        return new TrackerSettings(true, DEFAULT_TOPIC, 100, Duration.ofMillis(100), true, 3, (short) 1);
    }

    public static TrackerSettings disabled() {
        return new TrackerSettings(false, DEFAULT_TOPIC, 100, Duration.ofMillis(100), false, 3, (short) 1);
    }
}
