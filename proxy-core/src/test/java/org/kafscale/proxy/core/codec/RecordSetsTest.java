package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class RecordSetsTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static MemoryRecords concat(MemoryRecords first, MemoryRecords second) {
        ByteBuffer all = ByteBuffer.allocate(first.sizeInBytes() + second.sizeInBytes());
        all.put(first.buffer().duplicate()).put(second.buffer().duplicate()).flip();
        return MemoryRecords.readableRecords(all);
    }

    @Test
    void theNextOffsetIsAfterTheLastCompleteBatchAsAConsumerReadsOn() {
        // Given batches at offsets 10-11 and 12-14, then a third batch cut short, as a broker ends an answer at max_bytes
        MemoryRecords first = MemoryRecords.withRecords(10L, Compression.NONE, new SimpleRecord(utf8("a")),
                new SimpleRecord(utf8("b")));
        MemoryRecords second = MemoryRecords.withRecords(12L, Compression.NONE, new SimpleRecord(utf8("c")),
                new SimpleRecord(utf8("d")), new SimpleRecord(utf8("e")));
        MemoryRecords third = MemoryRecords.withRecords(15L, Compression.NONE, new SimpleRecord(utf8("f")));
        MemoryRecords two = concat(first, second);
        ByteBuffer cut = ByteBuffer.allocate(two.sizeInBytes() + third.sizeInBytes() / 2);
        cut.put(two.buffer().duplicate()).put(third.buffer().duplicate().limit(third.sizeInBytes() / 2)).flip();

        // Then the consumer goes on at 15 (the cut batch is fetched again), and there is no such offset without a batch
        assertEquals(15L, RecordSets.nextOffsetAfterCompleteBatches(MemoryRecords.readableRecords(cut)));
        assertEquals(15L, RecordSets.nextOffsetAfterCompleteBatches(two));
        assertEquals(-1L, RecordSets.nextOffsetAfterCompleteBatches(RecordSets.empty()));
        assertEquals(-1L, RecordSets.nextOffsetAfterCompleteBatches(null));
    }

    @Test
    void theProxysOwnRecordsAreOneUncompressedBatchAtTheGivenTime() {
        // Given two records, one without a key
        List<RecordSets.KeyValue> records = List.of(new RecordSets.KeyValue(utf8("k"), utf8("v1")),
                new RecordSets.KeyValue(null, utf8("v2")));

        // When they are made into a record set
        MemoryRecords set = RecordSets.uncompressed(1_234L, records);

        // Then it is one magic v2 batch with CreateTime, no compression, no producer id, the records in order
        List<MutableRecordBatch> batches = new ArrayList<>();
        set.batches().forEach(batches::add);
        assertEquals(1, batches.size());
        MutableRecordBatch batch = batches.get(0);
        batch.ensureValid();
        assertEquals(RecordBatch.MAGIC_VALUE_V2, batch.magic());
        assertEquals(CompressionType.NONE, batch.compressionType());
        assertEquals(TimestampType.CREATE_TIME, batch.timestampType());
        assertFalse(batch.hasProducerId());
        List<Record> read = new ArrayList<>();
        batch.forEach(read::add);
        assertArrayEquals(utf8("k"), bytes(read.get(0).key()));
        assertArrayEquals(utf8("v1"), bytes(read.get(0).value()));
        assertNull(read.get(1).key());
        assertArrayEquals(utf8("v2"), bytes(read.get(1).value()));
        assertEquals(List.of(1_234L, 1_234L), read.stream().map(Record::timestamp).toList());
        assertEquals(0, read.get(0).headers().length);
    }

    @Test
    void dataRecordsAreCountedAndTransactionMarkersAreNot() {
        // Given a batch of three records followed by a commit marker
        MemoryRecords set = concat(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(utf8("a")),
                        new SimpleRecord(utf8("b")), new SimpleRecord(utf8("c"))),
                MemoryRecords.withEndTransactionMarker(3, 4711, (short) 0,
                        new EndTransactionMarker(ControlRecordType.COMMIT, 0)));

        // When its data records are counted
        int count = RecordSets.countDataRecords(set);

        // Then the marker does not count
        assertEquals(3, count);
    }

    @Test
    void batchesOfEveryFormatAreCounted() {
        // Given a compressed v2 batch (its count in the header) and a v1 message set (no count there)
        MemoryRecords compressed = MemoryRecords.withRecords(Compression.gzip().build(), new SimpleRecord(utf8("a")),
                new SimpleRecord(utf8("b")));
        MemoryRecords older = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, Compression.NONE,
                new SimpleRecord(utf8("c")), new SimpleRecord(utf8("d")), new SimpleRecord(utf8("e")));

        // When / Then
        assertEquals(2, RecordSets.countDataRecords(compressed));
        assertEquals(3, RecordSets.countDataRecords(older));
        assertEquals(5, RecordSets.countDataRecords(concat(compressed, older)));
    }

    @Test
    void aBatchThatFailsItsChecksumIsNotCounted() {
        // Given a batch with one byte of a record changed after its CRC was computed
        MemoryRecords set = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(utf8("value")));
        ByteBuffer bytes = set.buffer();
        bytes.put(bytes.limit() - 1, (byte) (bytes.get(bytes.limit() - 1) ^ 1));

        // When / Then counting it fails as Kafka's corrupt-record error
        assertThrows(CorruptRecordException.class, () -> RecordSets.countDataRecords(set));
    }

    @Test
    void noRecordsCountAsNone() {
        // Given a partition answer without records
        // When / Then it counts none
        assertEquals(0, RecordSets.countDataRecords(null));
        assertEquals(0, RecordSets.countDataRecords(RecordSets.empty()));
    }
}
