package org.kafscale.proxy.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Record batches as producers write them, built by kafka-clients, and their values read back:
 * the one place tests touch kafka-clients' internal record classes.
 */
public final class TestRecords {
    private static final long TIMESTAMP = 1_700_000_000_000L;
    private static final short EPOCH = 0;
    private static final int FIRST_SEQUENCE = 0;

    private TestRecords() {
    }

    /** One batch without a producer id (a producer with idempotence off). */
    public static MemoryRecords plain(String... values) {
        return MemoryRecords.withRecords(Compression.NONE, records(values));
    }

    /** One batch without a producer id whose first record has offset {@code baseOffset}, as a broker returns it. */
    public static MemoryRecords plainAt(long baseOffset, String... values) {
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, records(values));
    }

    /** One batch of an idempotent producer. */
    public static MemoryRecords idempotent(long producerId, String... values) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, EPOCH, FIRST_SEQUENCE, records(values));
    }

    /** One batch of a transactional producer. */
    public static MemoryRecords transactional(long producerId, String... values) {
        return MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, EPOCH, FIRST_SEQUENCE, records(values));
    }

    /** No records, as a broker sends for a partition with nothing new. */
    public static MemoryRecords empty() {
        return MemoryRecords.EMPTY;
    }

    /** The values of every record, in order; none for a null or empty record set. */
    public static List<String> values(BaseRecords records) {
        List<String> values = new ArrayList<>();
        if (records instanceof MemoryRecords memory) {
            for (RecordBatch batch : memory.batches()) {
                for (Record record : batch) {
                    values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
                }
            }
        } else if (records != null && records.sizeInBytes() > 0) {
            throw new IllegalArgumentException("cannot read " + records.getClass().getSimpleName());
        }
        return values;
    }

    private static SimpleRecord[] records(String... values) {
        return Arrays.stream(values).map(v -> new SimpleRecord(TIMESTAMP, null, v.getBytes(StandardCharsets.UTF_8)))
                .toArray(SimpleRecord[]::new);
    }
}
