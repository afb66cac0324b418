package org.kafscale.proxy.bench.soak;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The soak's new verdicts judge what they say: exactly-once output, and recovery by workload. */
class ChecksTest {
    private static final Map<Integer, Map<Long, String>> INPUT = Map.of(
            0, Map.of(0L, "p:0", 1L, "p:1"),
            1, Map.of(0L, "p:2"));

    @Test
    void exactlyOncePassesWhenEachInputRecordIsInTheOutputOnce() {
        Checks checks = new Checks();
        checks.exactlyOnce(INPUT, Map.of(0, Map.of(0L, "0:0:p:0", 1L, "1:0:p:2"), 1, Map.of(0L, "0:1:p:1")), "");
        assertTrue(checks.allPassed(), checks.verdicts().toString());
    }

    @Test
    void exactlyOnceFailsOnARecordTwice() {
        Checks checks = new Checks();
        checks.exactlyOnce(INPUT, Map.of(0, Map.of(0L, "0:0:p:0", 1L, "1:0:p:2", 2L, "0:0:p:0"),
                1, Map.of(0L, "0:1:p:1")), "");
        assertFalse(checks.allPassed());
        assertTrue(checks.verdicts().get(0).detail().contains("0:0:p:0"), checks.verdicts().toString());
    }

    @Test
    void exactlyOnceFailsOnARecordMissingOrForeign() {
        Checks missing = new Checks();
        missing.exactlyOnce(INPUT, Map.of(0, Map.of(0L, "0:0:p:0"), 1, Map.of(0L, "0:1:p:1")), "");
        assertFalse(missing.allPassed());
        Checks foreign = new Checks();
        foreign.exactlyOnce(INPUT, Map.of(0, Map.of(0L, "0:0:p:0", 1L, "1:0:p:2", 2L, "9:9:x"),
                1, Map.of(0L, "0:1:p:1")), "");
        assertFalse(foreign.allPassed());
    }

    @Test
    void recoveryIsJudgedOnlyOnTheWorkloadsNamed() {
        Chaos.Event event = new Chaos.Event(Chaos.Kind.RELAY_FAULT, "broker 0", 30, 31, "done");
        Map<Chaos.Event, Map<String, Double>> recovery = Map.of(event,
                Map.of("producer-a", 1.0, "lfs-a", Double.POSITIVE_INFINITY));
        Checks checks = new Checks();
        checks.recoveredAfterEveryEvent("producers", "producer-", List.of(event), recovery, Duration.ofSeconds(60), "");
        assertTrue(checks.allPassed(), checks.verdicts().toString());
        checks.recoveredAfterEveryEvent("LFS uploads", "lfs-", List.of(event), recovery, Duration.ofSeconds(60), "");
        assertFalse(checks.allPassed());
    }
}
