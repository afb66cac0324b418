package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * What routing needs to know of a record set without opening it, in one place: kafka-clients
 * keeps these classes in an internal package that moved between 4.0 and 4.3, so a Kafka upgrade
 * should have to touch only the codec package.
 */
public final class RecordSets {
    private RecordSets() {
    }

    /** An empty record set, as a broker sends for a partition with nothing to return. */
    public static MemoryRecords empty() {
        return MemoryRecords.EMPTY;
    }

    /** Bytes of a record set, 0 for none. */
    public static int sizeInBytes(BaseRecords records) {
        return records == null ? 0 : records.sizeInBytes();
    }

    /**
     * Whether every batch carries a producer id (an idempotent or transactional producer's): the
     * broker then numbers and deduplicates them, and the proxy must not reorder them by retrying.
     */
    public static boolean allBatchesHaveProducerId(BaseRecords records) {
        if (!(records instanceof MemoryRecords memory)) {
            return false;
        }
        for (MutableRecordBatch batch : memory.batches()) {
            if (!batch.hasProducerId()) {
                return false;
            }
        }
        return true;
    }
}
