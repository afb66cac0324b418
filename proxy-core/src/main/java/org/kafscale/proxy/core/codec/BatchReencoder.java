package org.kafscale.proxy.core.codec;

import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Writes a record batch again with some record values and headers replaced, using kafka-clients'
 * own {@link MemoryRecordsBuilder} (spec §4.10): the same codec, base offset, producer id, epoch,
 * base sequence, transactional flag, partition leader epoch, timestamp type and per-record
 * timestamps and keys; the builder computes the new CRC-32C. Records without an edit are copied
 * as they are. Only magic v2 batches carry headers, so only they can be re-encoded.
 */
final class BatchReencoder {
    private BatchReencoder() {
    }

    /**
     * @param batch a magic v2, non-control batch
     * @param edits replacements by record offset (as the batch numbers its records)
     * @return one batch, the re-encoded {@code batch}
     * @throws IllegalArgumentException when the batch cannot be re-encoded or an edit names an
     *                                  offset the batch does not hold
     */
    static MemoryRecords reencode(RecordBatch batch, Map<Long, RecordEdits.Edit> edits) {
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2 || batch.isControlBatch()) {
            throw new IllegalArgumentException("only magic v2 data batches can be re-encoded, not magic "
                    + batch.magic() + (batch.isControlBatch() ? " control" : ""));
        }
        int estimate = batch.sizeInBytes() + edits.values().stream().mapToInt(e -> e.value().remaining() + 64).sum();
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(estimate), batch.magic(),
                Compression.of(batch.compressionType()).build(), batch.timestampType(), batch.baseOffset(),
                RecordBatch.NO_TIMESTAMP, batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.isTransactional(), false, batch.partitionLeaderEpoch());
        int applied = 0;
        for (Record record : batch) {
            RecordEdits.Edit edit = edits.get(record.offset());
            ByteBuffer key = record.hasKey() ? record.key() : null;
            if (edit == null) {
                builder.appendWithOffset(record.offset(), record.timestamp(), key,
                        record.hasValue() ? record.value() : null, record.headers());
            } else {
                builder.appendWithOffset(record.offset(), record.timestamp(), key, edit.value().duplicate(),
                        edit.headers());
                applied++;
            }
        }
        if (applied < edits.size()) {
            throw new IllegalArgumentException((edits.size() - applied) + " of " + edits.size()
                    + " edits name offsets the batch at base offset " + batch.baseOffset() + " does not hold");
        }
        return builder.build();
    }
}
