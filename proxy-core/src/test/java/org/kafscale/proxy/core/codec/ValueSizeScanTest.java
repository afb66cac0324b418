package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** Whether a partition of an offload topic must be decoded at all, from its batch headers. */
class ValueSizeScanTest {
    private static final long THRESHOLD = 4096;

    @Test
    void smallUncompressedBatchesNeedNoDecoding() {
        MemoryRecords records = records(Compression.NONE, new byte[100], new byte[200]);
        assertFalse(RecordSets.mayHoldValueOver(records, THRESHOLD));
    }

    @Test
    void uncompressedBatchesLongerThanTheThresholdAreDecoded() {
        MemoryRecords records = records(Compression.NONE, new byte[(int) THRESHOLD]);
        assertTrue(RecordSets.mayHoldValueOver(records, THRESHOLD));
    }

    @Test
    void aSmallCompressedBatchIsDecodedAsItsValuesMayBeLarger() {
        // Given: a value over the threshold that compresses to far less
        MemoryRecords records = records(Compression.gzip().build(), new byte[(int) THRESHOLD * 4]);
        // Then
        assertTrue(records.sizeInBytes() < THRESHOLD);
        assertTrue(RecordSets.mayHoldValueOver(records, THRESHOLD));
    }

    private static MemoryRecords records(Compression compression, byte[]... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i]);
        }
        return MemoryRecords.withRecords(compression, records);
    }
}
