package org.kafscale.proxy.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The virtual-cluster table shows both routes, the ratio of each round's values, and every round. */
class VirtualClusterTableTest {

    @Test
    void aRowShowsBothMediansTheMedianOfPerRoundRatiosAndEveryRound() {
        // Given three rounds in which the virtual cluster ran at 0.9, 0.5 and 1.0 of the proxy without it
        Row produce = Row.compared("Produce throughput (1 KiB, acks=all, 12 partitions)", "throughput", "MiB/s",
                List.of(100.0, 80.0, 50.0), List.of(90.0, 40.0, 50.0), List.of(), null);
        BenchReport report = new BenchReport("scripts/bench-tenants.sh", "2026-12-07T05:00:00Z", "abc1234",
                Map.of("cores", "2"), Map.of("rounds", "3, after 2 unmeasured"), List.of(produce));

        // When it is rendered
        String table = VirtualClusterTable.render(report);

        // Then the row holds each route's median, the median ratio (0.9), and the rounds in order
        assertTrue(table.contains("| Produce throughput (1 KiB, acks=all, 12 partitions) | throughput | MiB/s | 80.0"
                + " | 50.0 | 0.90 | 100 80.0 50.0 | 90.0 40.0 50.0 |\n"), table);
    }

    @Test
    void theTableSaysWhichCommandCommitAndSettingsMadeIt() {
        BenchReport report = new BenchReport("scripts/bench-tenants.sh -Dbench.rounds=1", "2026-12-07T05:00:00Z",
                "abc1234", Map.of("cores", "2"), Map.of("rounds", "1, after 0 unmeasured"), List.of());

        String[] lines = VirtualClusterTable.render(report).split("\n");

        assertEquals("Command: `scripts/bench-tenants.sh -Dbench.rounds=1`  ", lines[0]);
        assertEquals("Date: 2026-12-07T05:00:00Z, commit `abc1234`  ", lines[1]);
        assertEquals("Machine: cores 2  ", lines[2]);
        assertEquals("Settings: rounds 1, after 0 unmeasured", lines[3]);
        assertTrue(lines[5].startsWith("| Workload | Metric | Unit | No gateway file (median) | One virtual cluster"));
    }
}
