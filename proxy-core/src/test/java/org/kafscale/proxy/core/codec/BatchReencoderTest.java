package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class BatchReencoderTest {
    private static final long PRODUCER_ID = 4711;
    private static final short EPOCH = 3;
    private static final int BASE_SEQUENCE = 42;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static MutableRecordBatch producerBatch(CompressionType type, boolean transactional) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
                Compression.of(type).build(), TimestampType.CREATE_TIME, 0, RecordBatch.NO_TIMESTAMP, PRODUCER_ID,
                EPOCH, BASE_SEQUENCE, transactional, false, RecordBatch.NO_PARTITION_LEADER_EPOCH);
        builder.appendWithOffset(0, 1_000, utf8("k0"), utf8("plain-0"),
                new Header[] {new RecordHeader("trace", utf8("t0"))});
        builder.appendWithOffset(1, 1_005, utf8("k1"), utf8("big payload"),
                new Header[] {new RecordHeader("LFS_BLOB", utf8("")), new RecordHeader("trace", utf8("t1"))});
        builder.appendWithOffset(2, 1_009, (byte[]) null, utf8("plain-2"), Record.EMPTY_HEADERS);
        return builder.build().batches().iterator().next();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class)
    void replacesOnlyTheEditedRecordAndKeepsEveryBatchField(CompressionType type) {
        // Given a transactional producer's batch of three records
        MutableRecordBatch original = producerBatch(type, true);
        Header[] kept = {new RecordHeader("trace", utf8("t1"))};

        // When the middle record gets a new value and headers
        MemoryRecords out = BatchReencoder.reencode(original,
                Map.of(1L, new RecordEdits.Edit(ByteBuffer.wrap(utf8("{\"kfs_lfs\":1}")), kept)));

        // Then one valid batch comes out with every batch field kept and only that record changed
        List<MutableRecordBatch> batches = new ArrayList<>();
        out.batches().forEach(batches::add);
        assertEquals(1, batches.size());
        MutableRecordBatch batch = batches.get(0);
        batch.ensureValid(); // CRC-32C recomputed
        assertEquals(type, batch.compressionType());
        assertEquals(original.baseOffset(), batch.baseOffset());
        assertEquals(PRODUCER_ID, batch.producerId());
        assertEquals(EPOCH, batch.producerEpoch());
        assertEquals(BASE_SEQUENCE, batch.baseSequence());
        assertEquals(original.lastSequence(), batch.lastSequence());
        assertTrue(batch.isTransactional());
        assertEquals(TimestampType.CREATE_TIME, batch.timestampType());
        assertEquals(original.maxTimestamp(), batch.maxTimestamp());
        assertEquals(original.partitionLeaderEpoch(), batch.partitionLeaderEpoch());

        List<Record> records = new ArrayList<>();
        batch.forEach(records::add);
        assertEquals(3, records.size());
        assertArrayEquals(utf8("plain-0"), bytes(records.get(0).value()));
        assertArrayEquals(new Header[] {new RecordHeader("trace", utf8("t0"))}, records.get(0).headers());
        assertArrayEquals(utf8("{\"kfs_lfs\":1}"), bytes(records.get(1).value()));
        assertArrayEquals(kept, records.get(1).headers());
        assertArrayEquals(utf8("k1"), bytes(records.get(1).key()));
        assertEquals(1_005, records.get(1).timestamp());
        assertFalse(records.get(2).hasKey());
        assertArrayEquals(utf8("plain-2"), bytes(records.get(2).value()));
        assertEquals(1_009, records.get(2).timestamp());
    }

    @Test
    void aBatchWithoutProducerIdStaysWithoutOne() {
        // Given a batch of a producer without idempotence
        MemoryRecords plain = MemoryRecords.withRecords(Compression.lz4().build(),
                new org.apache.kafka.common.record.internal.SimpleRecord(utf8("v")));
        MutableRecordBatch original = plain.batches().iterator().next();

        // When its record is edited
        MutableRecordBatch batch = BatchReencoder.reencode(original,
                Map.of(0L, new RecordEdits.Edit(ByteBuffer.wrap(utf8("e")), Record.EMPTY_HEADERS)))
                .batches().iterator().next();

        // Then the new batch has no producer id or sequence either
        batch.ensureValid();
        assertFalse(batch.hasProducerId());
        assertEquals(RecordBatch.NO_SEQUENCE, batch.baseSequence());
        assertEquals(CompressionType.LZ4, batch.compressionType());
    }

    @Test
    void controlBatchesAreRefused() {
        // Given a transaction marker
        MutableRecordBatch marker = MemoryRecords.withEndTransactionMarker(0, PRODUCER_ID, EPOCH,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0)).batches().iterator().next();

        // When / Then re-encoding it is refused
        assertThrows(IllegalArgumentException.class, () -> BatchReencoder.reencode(marker, Map.of()));
    }

    @Test
    void anEditOfAnOffsetTheBatchDoesNotHoldIsRefused() {
        // Given a batch of the records at offsets 0 to 2
        MutableRecordBatch original = producerBatch(CompressionType.NONE, false);

        // When / Then an edit of offset 7 is refused rather than dropped
        Map<Long, RecordEdits.Edit> edits = Map.of(7L, new RecordEdits.Edit(ByteBuffer.wrap(utf8("e")),
                Record.EMPTY_HEADERS));
        assertThrows(IllegalArgumentException.class, () -> BatchReencoder.reencode(original, edits));
    }
}
