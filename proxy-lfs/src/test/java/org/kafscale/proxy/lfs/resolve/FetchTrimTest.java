package org.kafscale.proxy.lfs.resolve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class FetchTrimTest {
    private static final long NO_CUT = FetchTrim.NO_CUT;

    private static FetchTrim.Part resized(int partitionMax, long firstOffset, long... sizes) {
        long[] offsets = new long[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            offsets[i] = firstOffset + i;
        }
        return new FetchTrim.Part(partitionMax, 0, offsets, sizes);
    }

    @Test
    void recordsWithinBothLimitsAreKept() {
        // Given two partitions whose resolved records fit
        List<FetchTrim.Part> parts = List.of(resized(100, 0, 30, 30), resized(100, 10, 40));

        // Then nothing is cut
        assertArrayEquals(new long[] {NO_CUT, NO_CUT}, FetchTrim.endOffsets(1000, parts));
    }

    @Test
    void aPartitionIsCutAtItsOwnLimit() {
        List<FetchTrim.Part> parts = List.of(resized(100, 5, 60, 30, 20));

        // 60 + 30 fit in 100, the third record does not: the partition ends before offset 7
        assertArrayEquals(new long[] {7}, FetchTrim.endOffsets(1000, parts));
    }

    @Test
    void theFirstRecordOfTheAnswerGoesOutWhateverItsSize() {
        List<FetchTrim.Part> parts = List.of(resized(10, 0, 64L << 20, 5));

        // Then only the first, larger than both limits, is kept
        assertArrayEquals(new long[] {1}, FetchTrim.endOffsets(100, parts));
    }

    @Test
    void aLaterPartitionWhoseFirstRecordDoesNotFitGetsNoRecords() {
        List<FetchTrim.Part> parts = List.of(resized(1000, 0, 80), resized(1000, 40, 50, 1));

        // 80 of the answer's 100 are used: the second partition's first record (50) does not fit
        assertArrayEquals(new long[] {NO_CUT, 40}, FetchTrim.endOffsets(100, parts));
    }

    @Test
    void partitionsNotResizedCountAgainstTheAnswerAndAreNeverCut() {
        List<FetchTrim.Part> parts = List.of(FetchTrim.Part.fixed(90), resized(1000, 3, 20, 20));

        // The broker's 90 bytes go first; the first resolved record is not the answer's first
        assertArrayEquals(new long[] {NO_CUT, 3}, FetchTrim.endOffsets(100, parts));
    }

    @Test
    void anEmptyPartitionBeforeDoesNotTakeTheFirstRecordsRight() {
        List<FetchTrim.Part> parts = List.of(FetchTrim.Part.fixed(0), resized(10, 0, 500, 1));

        assertArrayEquals(new long[] {NO_CUT, 1}, FetchTrim.endOffsets(100, parts));
    }
}
