package org.kafscale.proxy.app.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.audit.AuditEvent;
import org.kafscale.proxy.core.audit.AuditSinkObserver;
import org.kafscale.proxy.core.audit.AuditTrail;
import org.kafscale.proxy.core.audit.RollingFileSink;
import org.kafscale.proxy.core.audit.SinkQueue;
import org.kafscale.proxy.testkit.Eventually;

class DegradationChecksTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void anAuditSinkThatCannotWriteIsAReasonUntilItWritesAgain() throws Exception {
        // Given a file sink whose directory does not exist
        Path missing = dir.resolve("audit");
        try (AuditTrail trail = new AuditTrail(List.of(new SinkQueue(
                new RollingFileSink(missing.resolve("audit.log"), 1 << 20, 2), 16, AuditSinkObserver.NONE)), false)) {
            DegradationCheck check = DegradationChecks.audit(trail);

            // When an event is recorded
            trail.record(AuditEvent.denied(Instant.now(), new AuditEvent.Subject("client-1", "10.0.0.1", null, null),
                    "CreateTopics", List.of()));

            // Then the sink is a reason, naming it and the error
            Eventually.await(DEADLINE, "the sink to be down", () -> !check.failing().isEmpty());
            HealthReason reason = check.failing().get(0);
            assertEquals("audit_sink_down", reason.reason());
            assertTrue(reason.detail().startsWith("audit sink file: "), reason.detail());

            // And when the directory appears, the sink's probe writes again and the reason clears
            Files.createDirectories(missing);
            Eventually.await(DEADLINE, "the sink to write again", () -> check.failing().isEmpty());
        }
    }
}
