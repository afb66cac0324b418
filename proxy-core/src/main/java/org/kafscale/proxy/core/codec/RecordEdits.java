package org.kafscale.proxy.core.codec;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

/**
 * Replaces the value and headers of chosen records in a Produce partition's records (the LFS
 * rewrite): only the batches that hold an edited record are re-encoded ({@link BatchReencoder});
 * every other batch is copied byte for byte. Only records of magic v2 data batches can be edited,
 * as only they carry headers.
 */
public final class RecordEdits {
    private RecordEdits() {
    }

    /**
     * Where a record sits in a record set. Producers number the records of each batch from 0, so
     * an offset alone does not tell records of different batches apart.
     *
     * @param batch the batch's position in the record set, counting every batch from 0
     * @param offset the record's offset as its batch numbers it
     */
    public record Position(int batch, long offset) {
    }

    /**
     * A record that can be edited, read in place: the buffers are views, valid while the records are.
     *
     * @param value the value, or null for none
     */
    public record EditableRecord(Position position, Header[] headers, ByteBuffer value) {
    }

    /**
     * The new value and headers of one record.
     *
     * @param value the new value
     * @param headers the new headers, in order
     */
    public record Edit(ByteBuffer value, Header[] headers) {
    }

    /**
     * Visits every record of the magic v2 data batches in {@code records}, in order; other batches
     * (older magic, transaction markers) are counted but not opened.
     *
     * @throws RuntimeException (Kafka's CorruptRecordException and friends) when a batch does not decode
     */
    public static void forEachEditable(BaseRecords records, Consumer<EditableRecord> visitor) {
        if (!(records instanceof MemoryRecords memory)) {
            return;
        }
        int index = 0;
        for (MutableRecordBatch batch : memory.batches()) {
            if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2 && !batch.isControlBatch()) {
                for (Record record : batch) {
                    visitor.accept(new EditableRecord(new Position(index, record.offset()), record.headers(),
                            record.hasValue() ? record.value() : null));
                }
            }
            index++;
        }
    }

    /**
     * A copy of {@code partition} (same index) whose records carry {@code edits}; {@code partition}
     * itself is left as it is.
     *
     * @throws IllegalArgumentException when an edit names a record that is not there or cannot be edited
     */
    public static PartitionProduceData apply(PartitionProduceData partition, Map<Position, Edit> edits) {
        Map<Integer, Map<Long, Edit>> byBatch = new HashMap<>();
        edits.forEach((at, edit) -> byBatch.computeIfAbsent(at.batch(), b -> new HashMap<>()).put(at.offset(), edit));
        BaseRecords records = partition.records();
        if (!(records instanceof MemoryRecords memory)) {
            throw new IllegalArgumentException("records of type "
                    + (records == null ? "none" : records.getClass().getSimpleName()) + " cannot be edited");
        }
        ByteBufferOutputStream out = new ByteBufferOutputStream(memory.sizeInBytes());
        int index = 0;
        for (MutableRecordBatch batch : memory.batches()) {
            Map<Long, Edit> batchEdits = byBatch.remove(index++);
            if (batchEdits == null) {
                batch.writeTo(out);
            } else {
                out.write(BatchReencoder.reencode(batch, batchEdits).buffer());
            }
        }
        if (!byBatch.isEmpty()) {
            throw new IllegalArgumentException("edits name batches " + byBatch.keySet() + " of " + index);
        }
        ByteBuffer buffer = out.buffer();
        buffer.flip();
        return new PartitionProduceData().setIndex(partition.index())
                .setRecords(MemoryRecords.readableRecords(buffer));
    }
}
