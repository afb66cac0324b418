package org.kafscale.proxy.core.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A fetched record set read record by record, then written again with chosen records' values
 * and headers replaced and every record from an offset on left out: what a policy that makes
 * records larger on the way to a consumer needs to stay within the consumer's fetch limits. A
 * batch with no replaced record that is kept whole is copied byte for byte; a batch with one is
 * written again through {@link MemoryRecordsBuilder} with its own codec and producer fields, as
 * {@link RecordRewrites} does. Control batches (transaction markers) before the cut are kept as
 * they are.
 */
public final class RecordCuts {
    private RecordCuts() {
    }

    /**
     * One data record of a set, as {@link #read} saw it.
     *
     * @param offset its offset
     * @param value a copy of its value (null for none) when {@link #read}'s filter asked for it,
     *     else null
     * @param sizeInBytes its encoded size in its batch (uncompressed)
     * @param first whether it is the first data record of its batch
     */
    public record Seen(long offset, byte[] value, int sizeInBytes, boolean first) {
    }

    /** Which values {@link #read} copies: the value's first bytes decide (a view valid during the call). */
    @FunctionalInterface
    public interface ValueFilter {
        boolean wanted(ByteBuffer value);
    }

    /** A record's new value and headers. */
    @FunctionalInterface
    public interface Replacer {
        /**
         * @param offset the record's offset
         * @return its new value and headers, or null to keep the record as it is
         */
        RecordRewrites.Rewritten replace(long offset, ByteBuffer value, Header[] headers);
    }

    /** A fetched partition's new record set, made off the event loop and put in place on it. */
    public record Cut(BaseRecords records) {
        /** {@code partition} answers these records instead. */
        public void applyTo(org.apache.kafka.common.message.FetchResponseData.PartitionData partition) {
            partition.setRecords(records);
        }
    }

    /**
     * The data records of {@code records}, in order, with the values {@code filter} wants copied.
     * A set that holds no record batches (nothing fetched) has none.
     *
     * @throws RuntimeException (Kafka's CorruptRecordException) when a batch does not decode
     */
    public static List<Seen> read(BaseRecords records, ValueFilter filter) {
        List<Seen> seen = new ArrayList<>();
        if (!(records instanceof MemoryRecords memory)) {
            return seen;
        }
        for (MutableRecordBatch batch : memory.batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            boolean first = true;
            for (Record record : batch) {
                byte[] copy = null;
                if (record.hasValue() && filter.wanted(record.value())) {
                    ByteBuffer value = record.value();
                    copy = new byte[value.remaining()];
                    value.get(copy);
                }
                seen.add(new Seen(record.offset(), copy, record.sizeInBytes(), first));
                first = false;
            }
        }
        return seen;
    }

    /**
     * {@code records} with the records {@code replacer} replaces written again, and every record
     * (and control batch) at {@code endOffset} or after left out.
     *
     * @throws IllegalArgumentException when the records are not a record set, or a batch to
     *         rewrite is older than magic v2 (it carries no headers)
     * @throws RuntimeException (Kafka's CorruptRecordException) when a batch does not decode
     */
    public static Cut cut(BaseRecords records, Replacer replacer, long endOffset) {
        if (!(records instanceof MemoryRecords memory)) {
            throw new IllegalArgumentException("records of type "
                    + (records == null ? "none" : records.getClass().getSimpleName()) + " cannot be rewritten");
        }
        // Pieces first, the copy last: a lone rewritten batch (a large payload is usually alone in
        // its batch) becomes the result as it is, and otherwise one exact copy is made. Writing into
        // a buffer sized up front kept the payload, its rebuilt batch and that buffer alive at once.
        List<ByteBuffer> pieces = new ArrayList<>();
        boolean lone = true;
        int position = memory.buffer().position();
        for (MutableRecordBatch batch : memory.batches()) {
            if (batch.baseOffset() >= endOffset) {
                break;
            }
            int size = batch.sizeInBytes();
            MemoryRecords rewritten = batch.isControlBatch() || batch.countOrNull() != null && batch.countOrNull() == 0
                    ? null : rewrite(batch, replacer, endOffset);
            if (rewritten == null) {
                // A view of the answer's own bytes: the answer outlives this call, the copy below doesn't share it.
                pieces.add(memory.buffer().duplicate().limit(position + size).position(position).slice());
                lone = false;
            } else if (rewritten.sizeInBytes() > 0) {
                pieces.add(rewritten.buffer());
            }
            position += size;
        }
        if (lone && pieces.size() == 1) {
            return new Cut(MemoryRecords.readableRecords(pieces.get(0)));
        }
        long total = 0;
        for (ByteBuffer piece : pieces) {
            total += piece.remaining();
        }
        ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(total));
        pieces.forEach(piece -> buffer.put(piece.duplicate()));
        buffer.flip();
        return new Cut(MemoryRecords.readableRecords(buffer));
    }

    /** The batch written again, or null when it is kept whole and unchanged. */
    private static MemoryRecords rewrite(MutableRecordBatch batch, Replacer replacer, long endOffset) {
        List<Record> kept = new ArrayList<>();
        List<RecordRewrites.Rewritten> replaced = new ArrayList<>();
        boolean changed = batch.lastOffset() >= endOffset;
        for (Record record : batch) {
            if (record.offset() >= endOffset) {
                break;
            }
            RecordRewrites.Rewritten r = replacer.replace(record.offset(), record.hasValue() ? record.value() : null,
                    record.headers());
            changed |= r != null;
            kept.add(record);
            replaced.add(r);
        }
        if (!changed) {
            return null;
        }
        if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
            throw new IllegalArgumentException("a batch of magic " + batch.magic() + " carries no headers");
        }
        long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp()
                : RecordBatch.NO_TIMESTAMP;
        int estimate = batch.sizeInBytes() + 256;
        for (RecordRewrites.Rewritten r : replaced) {
            if (r != null && r.value() != null) {
                estimate += r.value().remaining();
            }
        }
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(estimate), batch.magic(),
                Compression.of(batch.compressionType()).build(), batch.timestampType(), batch.baseOffset(),
                logAppendTime, batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.isTransactional(), false, batch.partitionLeaderEpoch());
        for (int i = 0; i < kept.size(); i++) {
            Record record = kept.get(i);
            RecordRewrites.Rewritten r = replaced.get(i);
            ByteBuffer key = record.hasKey() ? record.key() : null;
            if (r == null) {
                builder.appendWithOffset(record.offset(), record.timestamp(), key,
                        record.hasValue() ? record.value() : null, record.headers());
            } else {
                builder.appendWithOffset(record.offset(), record.timestamp(), key, r.value(), r.headers());
            }
        }
        return builder.build();
    }
}
