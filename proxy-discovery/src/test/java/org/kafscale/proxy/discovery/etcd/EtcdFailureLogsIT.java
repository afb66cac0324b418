package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;

/** What an operator reads in the log when etcd fails: a line per change of the gate, few lines per failure. */
class EtcdFailureLogsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration RESYNC = Duration.ofMillis(100);
    private static final Duration READ_TIMEOUT = Duration.ofMillis(500);
    private static final int REQUESTS = 20;
    /** RateLimitedLog.every10Seconds. */
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    @RegisterExtension
    static final OrdersInEtcd ETCD = new OrdersInEtcd();

    @RegisterExtension
    final DiscoveryLogs logs = new DiscoveryLogs();

    @Test
    void ttlGateSaysOnceThatRoutingStopsAndOnceThatItResumesAcrossManyRequests() {
        // Given
        try (EtcdTopology topology = EtcdFixtures.topology(EtcdFixtures.client(ETCD.etcd().endpoint()), TTL, RESYNC, READ_TIMEOUT)) {
            topology.start().join();
            // When: etcd is unreadable past the TTL, and many requests are refused meanwhile
            ETCD.etcd().stop();
            try {
                Eventually.await(DEADLINE, "the TTL gate to close", () -> !topology.routable());
                for (int i = 0; i < REQUESTS; i++) {
                    assertFalse(topology.recheck().toCompletableFuture().join(), "refused while etcd is down");
                }
            } finally {
                ETCD.etcd().start();
            }
            // When: etcd can be read again, and many requests pass
            Eventually.await(DEADLINE, "a request's re-check to open the gate",
                    () -> topology.recheck().toCompletableFuture().join());
            for (int i = 0; i < REQUESTS; i++) {
                assertTrue(topology.recheck().toCompletableFuture().join(), "routed once etcd is back");
            }
            // Then: one WARN when routing stopped, saying since when and the TTL; one INFO when it
            // resumed (written by the read that opened the gate, once it has applied what it read)
            Eventually.await(DEADLINE, "a line saying that routing resumes", () -> gateLines().size() >= 2);
            List<ILoggingEvent> gate = gateLines();
            ILoggingEvent closed = gate.get(0);
            assertEquals(Level.WARN, closed.getLevel());
            assertTrue(closed.getFormattedMessage().contains("routing stops: no good etcd read since "), closed.getFormattedMessage());
            assertTrue(closed.getFormattedMessage().contains("TTL 2 s"), closed.getFormattedMessage());
            ILoggingEvent opened = gate.get(1);
            assertEquals(Level.INFO, opened.getLevel());
            assertTrue(opened.getFormattedMessage().contains("routing resumes"), opened.getFormattedMessage());
            // (On a machine slow enough to go a whole TTL without a read the gate may close again
            // later; it must still say each change once, never a change twice in a row.)
            for (int i = 1; i < gate.size(); i++) {
                assertNotEquals(gate.get(i - 1).getLevel(), gate.get(i).getLevel(), "gate lines: " + gate);
            }
        }
    }

    @Test
    void failedReadIsAWarningWithItsStackTraceAtDebugOnly() {
        // Given: an etcd nobody answers at
        try (EtcdTopology topology = unreachable()) {
            // When
            assertThrows(CompletionException.class, () -> topology.read().join());
            // Then
            List<ILoggingEvent> warnings = logs.lines(Level.WARN, "etcd read failed");
            assertEquals(1, warnings.size(), "warnings: " + warnings);
            assertTrue(warnings.get(0).getFormattedMessage().contains("no answer within 500 ms"),
                    warnings.get(0).getFormattedMessage());
            assertNull(warnings.get(0).getThrowableProxy(), "no stack trace at WARN");
            assertTrue(logs.lines(Level.DEBUG, "etcd read failed").stream().anyMatch(e -> e.getThrowableProxy() != null),
                    "the stack trace is at DEBUG");
        }
    }

    @Test
    void aReadStillOutWhenTheTopologyClosesSaysNothing() {
        // Given: a read waiting for an etcd nobody answers at
        CompletableFuture<?> read;
        try (EtcdTopology topology = unreachable()) {
            read = topology.read();
            // When: the proxy shuts down before the read ends
        }
        Eventually.await(DEADLINE, "the read to end", read::isDone);
        // Then: no failed read, no gate change: the shutdown is not an etcd outage
        assertEquals(List.of(), logs.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO)).toList());
    }

    @Test
    void failedReadsWarnOncePerIntervalNotOncePerRead() {
        // Given
        long started = System.nanoTime();
        try (EtcdTopology topology = unreachable()) {
            // When: every read fails
            for (int i = 0; i < 5; i++) {
                assertThrows(CompletionException.class, () -> topology.read().join());
            }
            // Then: the first is said at once, and later ones at most once per interval
            long intervals = (System.nanoTime() - started) / LOG_INTERVAL_NANOS;
            int warnings = logs.lines(Level.WARN, "etcd read failed").size();
            assertTrue(warnings >= 1 && warnings <= 1 + intervals,
                    warnings + " warnings for 5 failed reads in " + intervals + " full log intervals");
        }
    }

    @Test
    void brokenWatchesAreWarnedOncePerIntervalWithoutAStackTrace() {
        // Given: the three watches on KafScale's prefixes
        long started = System.nanoTime();
        try (EtcdTopology topology = EtcdFixtures.topology(EtcdFixtures.client(ETCD.etcd().endpoint()), TTL,
                EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT)) {
            topology.start().join();
            Eventually.await(DEADLINE, "etcd to serve the three watches", () -> ETCD.etcd().watchers() >= 3);
            // When: etcd goes away, which breaks all three at once
            ETCD.etcd().stop();
            try {
                Eventually.await(DEADLINE, "all three watches to break (their DEBUG lines)",
                        () -> logs.lines(Level.DEBUG, "etcd watch on").size() >= 3);
            } finally {
                ETCD.etcd().start();
            }
            // Then
            long intervals = (System.nanoTime() - started) / LOG_INTERVAL_NANOS;
            List<ILoggingEvent> warnings = logs.lines(Level.WARN, "etcd watch on");
            assertTrue(warnings.size() >= 1 && warnings.size() <= 1 + intervals,
                    warnings.size() + " warnings for 3 broken watches in " + intervals + " full log intervals");
            assertTrue(warnings.stream().allMatch(e -> e.getThrowableProxy() == null), "no stack trace at WARN");
        }
    }

    private List<ILoggingEvent> gateLines() {
        return logs.matching(e -> e.getLoggerName().equals(TtlGate.class.getName()));
    }

    /** A topology on a loopback port where no etcd listens, not started (so only the test's reads run). */
    private static EtcdTopology unreachable() {
        return EtcdFixtures.topology(EtcdFixtures.client("http://127.0.0.1:" + FreePorts.next()), TTL,
                EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT);
    }
}
