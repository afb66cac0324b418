package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.utils.Utils;

/**
 * The partition Kafka's producer picks for a keyed record (murmur2 of the key bytes), so records
 * the proxy produces itself land where a client's with the same key would.
 */
public final class KeyPartitioner {
    private KeyPartitioner() {
    }

    /** The partition of {@code key} among {@code partitionCount} (positive) partitions. */
    public static int partitionOf(byte[] key, int partitionCount) {
        return Utils.toPositive(Utils.murmur2(key)) % partitionCount;
    }
}
