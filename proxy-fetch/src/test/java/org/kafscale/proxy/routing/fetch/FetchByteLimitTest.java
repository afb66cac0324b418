package org.kafscale.proxy.routing.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * The rules by which a merged Fetch answer keeps to {@code max_bytes}, partition by partition in
 * request order, as a broker applies them to its own answer: what fits is kept, the first non-empty
 * partition always (KIP-74), and a partition left out keeps its offsets but not its records.
 */
class FetchByteLimitTest {
    private static final String KILOBYTE = "k".repeat(1_000);
    private static final int BATCH_BYTES = TestRecords.plain(KILOBYTE).sizeInBytes();

    @Test
    void partitionsAreKeptInRequestOrderWhileTheyFit() {
        // Given three partitions of about 1 KB each and room for one and a half
        List<PartitionData> partitions = List.of(withBatch(KILOBYTE), withBatch(KILOBYTE), withBatch(KILOBYTE));

        // When the limit is applied
        apply(BATCH_BYTES * 3 / 2, partitions);

        // Then only the first keeps its records
        assertEquals(List.of(List.of(KILOBYTE), List.of(), List.of()), values(partitions));
    }

    @Test
    void smallerPartitionThatStillFitsAfterOneThatDoesNotIsKept() {
        // Given a large, a large and a small partition, with room for one and a half large ones
        List<PartitionData> partitions = List.of(withBatch(KILOBYTE), withBatch(KILOBYTE), withBatch("small"));

        // When the limit is applied
        apply(BATCH_BYTES * 3 / 2, partitions);

        // Then the small one is kept too
        assertEquals(List.of(List.of(KILOBYTE), List.of(), List.of("small")), values(partitions));
    }

    @Test
    void firstNonEmptyPartitionIsKeptWholeEvenWhenLargerThanTheLimit() {
        // Given an empty partition, then two of about 1 KB, and a limit smaller than one batch
        List<PartitionData> partitions = List.of(withBatch(), withBatch(KILOBYTE), withBatch(KILOBYTE));

        // When the limit is applied
        apply(100, partitions);

        // Then the first batch there is comes whole (KIP-74), so the consumer always progresses; nothing more
        assertEquals(List.of(List.of(), List.of(KILOBYTE), List.of()), values(partitions));
    }

    @Test
    void partitionLeftOutKeepsItsOffsetsAndLosesItsAbortedTransactions() {
        // Given two read_committed partitions of about 1 KB, the second with offsets and an aborted transaction
        PartitionData second = withBatch(KILOBYTE).setHighWatermark(42).setLastStableOffset(40).setLogStartOffset(3)
                .setAbortedTransactions(new ArrayList<>(List.of(new AbortedTransaction().setProducerId(7).setFirstOffset(0))));
        List<PartitionData> partitions = List.of(withBatch(KILOBYTE), second);

        // When the limit leaves room for one
        apply(BATCH_BYTES, partitions);

        // Then the second has no records, its offsets as the broker gave them, and no aborted transactions
        assertEquals(List.of(), TestRecords.values(second.records()));
        assertEquals(List.of(42L, 40L, 3L), List.of(second.highWatermark(), second.lastStableOffset(), second.logStartOffset()));
        assertEquals(List.of(), second.abortedTransactions());
    }

    private static void apply(int maxBytes, List<PartitionData> partitions) {
        FetchByteLimit limit = new FetchByteLimit(maxBytes);
        partitions.forEach(limit::admit);
    }

    private static PartitionData withBatch(String... values) {
        return new PartitionData().setRecords(values.length == 0 ? TestRecords.empty() : TestRecords.plain(values));
    }

    private static List<List<String>> values(List<PartitionData> partitions) {
        return partitions.stream().map(p -> TestRecords.values(p.records())).toList();
    }
}
