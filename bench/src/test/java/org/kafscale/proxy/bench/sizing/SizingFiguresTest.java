package org.kafscale.proxy.bench.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SizingFiguresTest {

    private static final long MIB = 1024L * 1024L;

    @Test
    void halfACoreSecondPerMibIsFiveHundredMillicoresPerMibPerSecond() {
        // 50 CPU seconds while moving 100 MiB: 0.5 core-seconds per MiB.
        assertEquals(500.0, SizingFigures.millicoresPerMibPerSecond(50.0, 100 * MIB), 1e-9);
    }

    @Test
    void nothingMovedIsRefusedRatherThanInfinite() {
        assertThrows(IllegalArgumentException.class, () -> SizingFigures.millicoresPerMibPerSecond(1.0, 0));
    }

    @Test
    void perConnectionBytesIsTheGrowthOverTheBaselineDividedByConnections() {
        assertEquals(20_000.0, SizingFigures.bytesPerConnection(100 * MIB, 100 * MIB + 20_000_000L, 1_000), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> SizingFigures.bytesPerConnection(0, 1, 0));
    }

    @Test
    void coresAddProduceAndFetchShares() {
        // 100 MiB/s in at 20 mc per MiB/s + 300 MiB/s out at 10 mc per MiB/s = 5000 mc = 5 cores.
        assertEquals(5.0, SizingFigures.cores(100, 20, 300, 10), 1e-9);
    }

    @Test
    void memoryAddsBaseAndConnections() {
        assertEquals(1_000 + 10 * 50.0 + 2 * 400.0, SizingFigures.memoryBytes(1_000, 10, 50.0, 2, 400.0), 1e-9);
    }
}
