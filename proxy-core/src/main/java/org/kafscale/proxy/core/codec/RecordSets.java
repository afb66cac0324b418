package org.kafscale.proxy.core.codec;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Record sets as the proxy makes and reads them, in one place: kafka-clients keeps these classes
 * in an internal package that moved between 4.0 and 4.3, so a Kafka upgrade should have to touch
 * only the codec package. Changing records inside a set is {@link RecordEdits}' job.
 */
public final class RecordSets {
    private RecordSets() {
    }

    /**
     * One record the proxy produces itself.
     *
     * @param key the key, or null for none
     * @param value the value
     */
    public record KeyValue(byte[] key, byte[] value) {
    }

    /** What {@link #visitDataRecords} hands over of each data record. */
    @FunctionalInterface
    public interface DataRecordVisitor {
        /**
         * @param index the record's place among the set's data records, from 0 (Kafka's {@code batch_index})
         * @param key the key, or null for none
         * @param value the value, or null for none (a tombstone)
         */
        void visit(int index, ByteBuffer key, ByteBuffer value);
    }

    /**
     * Visits every data record of {@code records} in order, decompressing compressed batches;
     * control batches are skipped. A set that is not a record set (no records sent) visits none.
     *
     * @throws RuntimeException when a batch does not decode (corrupt, or a codec this JVM lacks)
     */
    public static void visitDataRecords(BaseRecords records, DataRecordVisitor visitor) {
        if (!(records instanceof Records batches)) {
            return;
        }
        int index = 0;
        for (RecordBatch batch : batches.batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (Record record : batch) {
                visitor.visit(index++, record.hasKey() ? record.key() : null, record.hasValue() ? record.value() : null);
            }
        }
    }

    /** An empty record set, as a broker sends for a partition with nothing to return. */
    public static MemoryRecords empty() {
        return MemoryRecords.EMPTY;
    }

    /**
     * One uncompressed magic v2 batch of {@code records}, without headers or producer id, every
     * record with CreateTime {@code timestampMillis}.
     */
    public static MemoryRecords uncompressed(long timestampMillis, List<KeyValue> records) {
        SimpleRecord[] simple = records.stream().map(r -> new SimpleRecord(timestampMillis, r.key(), r.value()))
                .toArray(SimpleRecord[]::new);
        return MemoryRecords.withRecords(Compression.NONE, simple);
    }

    /** Bytes of a record set, 0 for none. */
    public static int sizeInBytes(BaseRecords records) {
        return records == null ? 0 : records.sizeInBytes();
    }

    /**
     * Whether every batch carries a producer id (an idempotent or transactional producer's): the
     * broker then numbers and deduplicates them, and the proxy must not reorder them by retrying.
     * Records that cannot be read as batches are not a producer's: false, and the broker that
     * receives them answers CORRUPT_MESSAGE, as it does to a client that sends them directly.
     */
    public static boolean allBatchesHaveProducerId(BaseRecords records) {
        if (!(records instanceof MemoryRecords memory)) {
            return false;
        }
        try {
            for (MutableRecordBatch batch : memory.batches()) {
                if (!batch.hasProducerId()) {
                    return false;
                }
            }
        } catch (RuntimeException unreadable) {
            return false;
        }
        return true;
    }

    /**
     * The data records in a record set (0 for none), each batch checked against its CRC first;
     * transaction markers do not count. A v2 batch says in its header how many records it holds
     * (covered by its CRC), so only older batches are walked record by record: the readiness
     * probe counts a Fetch of up to 1 MiB every few seconds, and decoding each record was 4 % of
     * what the event loops allocated in a produce profile.
     *
     * @throws RuntimeException (Kafka's CorruptRecordException) when a batch fails its check
     */
    public static int countDataRecords(BaseRecords records) {
        if (!(records instanceof Records batches)) {
            return 0;
        }
        int count = 0;
        for (RecordBatch batch : batches.batches()) {
            batch.ensureValid();
            if (batch.isControlBatch()) {
                continue;
            }
            Integer inHeader = batch.countOrNull();
            if (inHeader != null) {
                count += inHeader;
                continue;
            }
            for (Record ignored : batch) {
                count++;
            }
        }
        return count;
    }

    /**
     * The offset after the last complete batch of a record set (what a consumer fetches next once
     * it has read them all), or -1 when it holds no complete batch. A broker may end a set with a
     * batch cut at {@code max_bytes}; the iterator stops before it, as a consumer does.
     */
    public static long nextOffsetAfterCompleteBatches(BaseRecords records) {
        if (!(records instanceof Records batches)) {
            return -1;
        }
        long next = -1;
        for (RecordBatch batch : batches.batches()) {
            next = batch.nextOffset();
        }
        return next;
    }

    /**
     * Whether a value in {@code records} may be longer than {@code threshold}, from batch headers
     * only: false only when every batch is uncompressed and all of them together are no longer
     * than that (a value is then shorter still). A compressed batch may hold a value far larger
     * than the batch itself.
     */
    public static boolean mayHoldValueOver(BaseRecords records, long threshold) {
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
