package org.kafscale.proxy.core.codec;

import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.CloseableIterator;

/**
 * Writes every data batch of a record set (a Produce partition's, or a fetched one) again with each
 * record's value and headers replaced, through kafka-clients' {@link MemoryRecordsBuilder}: the
 * batch's own codec (decompressed, rewritten, compressed again), base offset and record offsets,
 * producer id, epoch and base sequence, transactional flag, partition leader epoch, timestamp type,
 * log-append time, per-record timestamps and keys. Control batches (transaction markers) and
 * empty batches are copied byte for byte. A partial batch at the end of a fetched set is left out,
 * as a consumer would drop it too. Where {@link RecordEdits} edits chosen records, this maps all.
 */
public final class RecordRewrites {
    /**
     * Each thread's buffers for decompressing a batch: a compressed batch read with no cache
     * allocates its codec's block buffers (64 KiB and more for LZ4) every time.
     */
    private static final ThreadLocal<BufferSupplier> DECOMPRESSION_BUFFERS = ThreadLocal.withInitial(BufferSupplier::create);
    private RecordRewrites() {
    }

    /** One record's new value (null for none) and headers. */
    public record Rewritten(ByteBuffer value, Header[] headers) {
    }

    @FunctionalInterface
    public interface RecordMapper {
        /**
         * @param value the record's value, a view valid during the call, or null for none
         * @throws IllegalArgumentException when the record may not pass
         */
        Rewritten map(ByteBuffer value, Header[] headers);
    }

    /** A record header, as kafka-clients makes them. */
    public static Header header(String key, byte[] value) {
        return new RecordHeader(key, value);
    }

    /**
     * The records of {@code records}, each mapped by {@code mapper}.
     *
     * @throws IllegalArgumentException when the records cannot be read as batches, a data batch is
     *         older than magic v2 (it carries no headers), or {@code mapper} refuses a record
     * @throws RuntimeException (Kafka's CorruptRecordException) when a batch does not decode
     */
    public static BaseRecords rewrite(BaseRecords records, RecordMapper mapper) {
        return rewrite(records, mapper, 0);
    }

    /**
     * As {@link #rewrite(BaseRecords, RecordMapper)}, for a mapper that makes each record up to
     * {@code growthPerRecord} bytes larger: the output is sized for it once, where growing it
     * record by record would copy the whole set again each time.
     */
    public static BaseRecords rewrite(BaseRecords records, RecordMapper mapper, int growthPerRecord) {
        if (!(records instanceof MemoryRecords memory)) {
            throw new IllegalArgumentException("records of type "
                    + (records == null ? "none" : records.getClass().getSimpleName()) + " cannot be rewritten");
        }
        long growth = growthPerRecord == 0 ? 0 : (long) growthPerRecord * RecordSets.countDataRecords(memory);
        ByteBufferOutputStream out = new ByteBufferOutputStream((int) Math.min(Integer.MAX_VALUE - 8,
                memory.sizeInBytes() + growth + 256));
        for (MutableRecordBatch batch : memory.batches()) {
            if (batch.isControlBatch() || batch.countOrNull() != null && batch.countOrNull() == 0) {
                batch.writeTo(out);
                continue;
            }
            if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
                throw new IllegalArgumentException("a batch of magic " + batch.magic() + " carries no headers");
            }
            rewrite(batch, mapper, out);
        }
        ByteBuffer buffer = out.buffer();
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    /**
     * Writes {@code batch} again at the end of {@code out}: every builder of a set writes into the
     * one stream, so no batch is built apart and then copied.
     */
    private static void rewrite(MutableRecordBatch batch, RecordMapper mapper, ByteBufferOutputStream out) {
        long logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp()
                : RecordBatch.NO_TIMESTAMP;
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, batch.magic(),
                Compression.of(batch.compressionType()).build(), batch.timestampType(), batch.baseOffset(),
                logAppendTime, batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.isTransactional(), false, batch.partitionLeaderEpoch(), Integer.MAX_VALUE);
        try (CloseableIterator<Record> records = batch.streamingIterator(DECOMPRESSION_BUFFERS.get())) {
            while (records.hasNext()) {
                Record record = records.next();
                Rewritten rewritten = mapper.map(record.hasValue() ? record.value() : null, record.headers());
                builder.appendWithOffset(record.offset(), record.timestamp(), record.hasKey() ? record.key() : null,
                        rewritten.value(), rewritten.headers());
            }
        }
        builder.close();
    }
}
