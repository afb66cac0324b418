package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class RecordCutsTest {
    private static final long PRODUCER_ID = 4711;
    private static final short EPOCH = 3;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return new String(out, StandardCharsets.UTF_8);
    }

    /** A transactional zstd batch at {@code base}: what a broker holds of a transaction. */
    private static MemoryRecords transactional(long base, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1_000 + i, utf8("k" + i), utf8(values[i]),
                    new Header[] {new RecordHeader("trace", utf8("t" + i))});
        }
        return MemoryRecords.withTransactionalRecords(base, Compression.zstd().build(), PRODUCER_ID, EPOCH, 7, 0,
                records);
    }

    private static MemoryRecords concat(MemoryRecords... sets) {
        ByteBuffer all = ByteBuffer.allocate(Arrays.stream(sets).mapToInt(MemoryRecords::sizeInBytes).sum());
        for (MemoryRecords set : sets) {
            all.put(set.buffer().duplicate());
        }
        all.flip();
        return MemoryRecords.readableRecords(all);
    }

    private static MemoryRecords fetched() {
        return concat(transactional(10, "a", "BIG", "c"),
                MemoryRecords.withEndTransactionMarker(13, 0L, 0, PRODUCER_ID, EPOCH,
                        new EndTransactionMarker(ControlRecordType.COMMIT, 0)),
                transactional(14, "d"));
    }

    private static MemoryRecords cut(MemoryRecords records, long end) {
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData();
        RecordCuts.cut(records, (offset, value, headers) -> offset != 11 ? null
                : new RecordRewrites.Rewritten(ByteBuffer.wrap(utf8("payload")),
                        new Header[] {headers[0], new RecordHeader("resolved", utf8("yes"))}), end)
                .applyTo(partition);
        return (MemoryRecords) partition.records();
    }

    @Test
    void readFindsEveryDataRecordAndCopiesOnlyTheValuesWanted() {
        List<RecordCuts.Seen> seen = RecordCuts.read(fetched(), value -> text(value).equals("BIG"));

        assertEquals(List.of(10L, 11L, 12L, 14L), seen.stream().map(RecordCuts.Seen::offset).toList());
        assertNull(seen.get(0).value());
        assertArrayEquals(utf8("BIG"), seen.get(1).value());
        assertTrue(seen.get(0).first() && !seen.get(1).first() && seen.get(3).first());
    }

    @Test
    void aReplacedRecordsBatchIsWrittenAgainWithItsProducerFieldsAndTheMarkerStays() {
        MemoryRecords out = cut(fetched(), Long.MAX_VALUE);

        List<MutableRecordBatch> batches = new ArrayList<>();
        out.batches().forEach(batches::add);
        assertEquals(3, batches.size());
        MutableRecordBatch first = batches.get(0);
        first.ensureValid();
        assertEquals(CompressionType.ZSTD, first.compressionType());
        assertTrue(first.isTransactional());
        assertEquals(PRODUCER_ID, first.producerId());
        assertEquals(EPOCH, first.producerEpoch());
        assertEquals(7, first.baseSequence());
        assertEquals(10, first.baseOffset());
        assertEquals(12, first.lastOffset());
        List<Record> records = new ArrayList<>();
        first.forEach(records::add);
        assertEquals("payload", text(records.get(1).value()));
        assertEquals("k1", text(records.get(1).key()));
        assertEquals(1_001, records.get(1).timestamp());
        assertEquals("yes", new String(records.get(1).headers()[1].value(), StandardCharsets.UTF_8));
        assertEquals("c", text(records.get(2).value()));
        assertTrue(batches.get(1).isControlBatch());
        // A batch without a replaced record is copied as the broker sent it
        ByteBuffer copied = ByteBuffer.allocate(batches.get(2).sizeInBytes());
        batches.get(2).writeTo(copied);
        ByteBuffer original = ByteBuffer.allocate(copied.capacity());
        transactional(14, "d").batches().iterator().next().writeTo(original);
        assertArrayEquals(original.array(), copied.array());
    }

    @Test
    void recordsFromTheCutOnAreLeftOutMarkersAndBatchesAfterItToo() {
        MemoryRecords out = cut(fetched(), 12);

        List<MutableRecordBatch> batches = new ArrayList<>();
        out.batches().forEach(batches::add);
        assertEquals(1, batches.size(), "the marker at 13 and the batch at 14 are after the cut");
        batches.get(0).ensureValid();
        assertEquals(11, batches.get(0).lastOffset());
        assertNotNull(batches.get(0).iterator().next());
    }
}
