package org.kafscale.proxy.lfs.rewrite;

import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * The cheap first look at a partition of an offload topic, from batch headers only: most
 * Produce requests carry small records, and deciding that none is over the threshold must not
 * cost decoding (or decompressing) every batch on the event loop.
 */
final class OffloadScan {
    private OffloadScan() {
    }

    /**
     * Whether a value in {@code records} may be longer than {@code threshold}: false only when
     * every batch is uncompressed and all of them together are no longer than that (a value is
     * then shorter still). A compressed batch may hold a value far larger than the batch itself.
     */
    static boolean mayHoldValueOver(BaseRecords records, long threshold) {
        if (!(records instanceof MemoryRecords memory)) {
            return false;
        }
        if (memory.sizeInBytes() > threshold) {
            return true;
        }
        for (MutableRecordBatch batch : memory.batches()) {
            if (batch.compressionType() != CompressionType.NONE) {
                return true;
            }
        }
        return false;
    }
}
