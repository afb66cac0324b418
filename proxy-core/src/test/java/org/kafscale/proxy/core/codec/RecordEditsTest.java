package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class RecordEditsTest {
    private static final Header[] TRACE = {new RecordHeader("trace", utf8("t"))};

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return new String(out, StandardCharsets.UTF_8);
    }

    /** A producer's batch: its records numbered from offset 0, as every batch in a Produce is. */
    private static MemoryRecords batch(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1_000 + i, utf8("k" + i), utf8(values[i]), TRACE);
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    private static MemoryRecords commitMarker() {
        return MemoryRecords.withEndTransactionMarker(0, 4711, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
    }

    private static MemoryRecords concat(MemoryRecords... sets) {
        ByteBuffer all = ByteBuffer.allocate(Arrays.stream(sets).mapToInt(MemoryRecords::sizeInBytes).sum());
        for (MemoryRecords set : sets) {
            all.put(set.buffer().duplicate());
        }
        all.flip();
        return MemoryRecords.readableRecords(all);
    }

    private static List<MutableRecordBatch> batches(MemoryRecords records) {
        List<MutableRecordBatch> out = new ArrayList<>();
        records.batches().forEach(out::add);
        return out;
    }

    private static byte[] bytes(MutableRecordBatch batch) {
        ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
        batch.writeTo(copy);
        return copy.array();
    }

    @Test
    void editableRecordsAreNamedByBatchAndOffsetAndMarkersAndOldBatchesAreSkipped() {
        // Given two data batches numbered from 0, a transaction marker and a magic v1 batch between them
        MemoryRecords records = concat(batch("a0", "a1"), commitMarker(),
                MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, Compression.NONE, new SimpleRecord(utf8("old"))),
                batch("b0"));

        // When the editable records are visited
        List<RecordEdits.EditableRecord> seen = new ArrayList<>();
        RecordEdits.forEachEditable(records, seen::add);

        // Then each data record is seen once, named by its batch's position and its offset, in place
        assertEquals(List.of(new RecordEdits.Position(0, 0), new RecordEdits.Position(0, 1),
                new RecordEdits.Position(3, 0)), seen.stream().map(RecordEdits.EditableRecord::position).toList());
        assertEquals(List.of("a0", "a1", "b0"), seen.stream().map(r -> text(r.value())).toList());
        assertArrayEquals(TRACE, seen.get(2).headers());
    }

    @Test
    void aRecordWithoutValueIsSeenWithNone() {
        // Given a batch whose record has no value
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(utf8("k"), (byte[]) null));

        // When it is visited
        List<RecordEdits.EditableRecord> seen = new ArrayList<>();
        RecordEdits.forEachEditable(records, seen::add);

        // Then its value is null rather than empty
        assertNull(seen.get(0).value());
    }

    @Test
    void anEditChangesItsOwnBatchAndCopiesTheOthersByteForByte() {
        // Given a partition of three batches, each numbered from offset 0
        MemoryRecords original = concat(batch("a0"), batch("b0", "b1"), batch("c0"));
        PartitionProduceData partition = new PartitionProduceData().setIndex(5).setRecords(original);

        // When record 1 of the second batch gets a new value and no headers
        PartitionProduceData edited = RecordEdits.apply(partition, Map.of(new RecordEdits.Position(1, 1),
                new RecordEdits.Edit(ByteBuffer.wrap(utf8("envelope")), Record.EMPTY_HEADERS)));

        // Then only that record changed, the other batches are the same bytes, and every CRC holds
        assertEquals(5, edited.index());
        List<MutableRecordBatch> before = batches(original);
        List<MutableRecordBatch> after = batches((MemoryRecords) edited.records());
        assertEquals(3, after.size());
        assertArrayEquals(bytes(before.get(0)), bytes(after.get(0)));
        assertArrayEquals(bytes(before.get(2)), bytes(after.get(2)));
        after.forEach(MutableRecordBatch::ensureValid);
        List<Record> middle = new ArrayList<>();
        after.get(1).forEach(middle::add);
        assertEquals("b0", text(middle.get(0).value()));
        assertArrayEquals(TRACE, middle.get(0).headers());
        assertEquals("envelope", text(middle.get(1).value()));
        assertArrayEquals(Record.EMPTY_HEADERS, middle.get(1).headers());
    }

    @Test
    void theEditedPartitionIsACopy() {
        // Given a partition of one batch
        MemoryRecords original = batch("a0");
        PartitionProduceData partition = new PartitionProduceData().setIndex(0).setRecords(original);

        // When its record is edited
        RecordEdits.apply(partition, Map.of(new RecordEdits.Position(0, 0),
                new RecordEdits.Edit(ByteBuffer.wrap(utf8("envelope")), Record.EMPTY_HEADERS)));

        // Then the partition still holds its own records, unchanged
        assertEquals(original, partition.records());
        Record record = batches(original).get(0).iterator().next();
        assertEquals("a0", text(record.value()));
    }

    @Test
    void anEditOfABatchThatIsNotThereIsRefused() {
        // Given a partition of one batch
        PartitionProduceData partition = new PartitionProduceData().setIndex(0).setRecords(batch("a0"));

        // When / Then an edit of a record in a second batch is refused rather than dropped
        Map<RecordEdits.Position, RecordEdits.Edit> edits = Map.of(new RecordEdits.Position(1, 0),
                new RecordEdits.Edit(ByteBuffer.wrap(utf8("envelope")), Record.EMPTY_HEADERS));
        assertThrows(IllegalArgumentException.class, () -> RecordEdits.apply(partition, edits));
    }
}
