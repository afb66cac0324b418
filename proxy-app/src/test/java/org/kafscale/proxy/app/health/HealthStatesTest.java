package org.kafscale.proxy.app.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HealthStatesTest {
    private static final Instant START = Instant.parse("2026-12-07T10:00:00Z");

    private final AtomicReference<Readiness.Status> readiness =
            new AtomicReference<>(new Readiness.Status(false, "read_path_not_probed", "not probed yet"));
    private final AtomicBoolean draining = new AtomicBoolean();
    private final List<HealthReason> failing = new ArrayList<>();
    private Instant now = START;
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };
    private final HealthStates states = new HealthStates(readiness::get, draining::get,
            List.of(() -> List.copyOf(failing)), clock);

    private void ready() {
        readiness.set(new Readiness.Status(true, "ready", "read path proven"));
    }

    @Test
    void startingUntilFirstReadyThenNotReadyWhenItStopsBeing() {
        // Given a proxy not ready yet
        HealthStates.Health starting = states.current();

        // When it becomes ready, and later its read path fails
        now = START.plusSeconds(5);
        ready();
        HealthStates.Health ready = states.current();
        now = START.plusSeconds(60);
        readiness.set(new Readiness.Status(false, "read_path_failed", "read path failed: timeout"));
        HealthStates.Health notReady = states.current();

        // Then it was starting, then ready since it became so, then not_ready with the reason, since then
        assertEquals(HealthState.STARTING, starting.state());
        assertEquals("read_path_not_probed", starting.reasons().get(0).reason());
        assertEquals(HealthState.READY, ready.state());
        assertEquals(START.plusSeconds(5), ready.since());
        assertEquals(List.of(), ready.reasons());
        assertEquals(HealthState.NOT_READY, notReady.state());
        assertEquals(START.plusSeconds(60), notReady.since());
        assertEquals(new HealthReason("read_path_failed", "read path failed: timeout", START.plusSeconds(60)),
                notReady.reasons().get(0));
    }

    @Test
    void degradedWhileACheckFailsWithItsReasonsAndReadyAgainWhenItClears() {
        // Given a ready proxy
        ready();
        states.current();

        // When a broker becomes unreachable, and later reachable again
        now = START.plusSeconds(10);
        failing.add(new HealthReason("broker_unreachable", "broker 2 at b2:9092: refused", START.plusSeconds(8)));
        HealthStates.Health degraded = states.current();
        now = START.plusSeconds(20);
        HealthStates.Health stillDegraded = states.current();
        failing.clear();
        now = START.plusSeconds(30);
        HealthStates.Health cleared = states.current();

        // Then degraded since it was first seen so, the reason since the check said, then ready again
        assertEquals(HealthState.DEGRADED, degraded.state());
        assertTrue(degraded.state().serving());
        assertEquals(START.plusSeconds(10), stillDegraded.since());
        assertEquals(List.of(new HealthReason("broker_unreachable", "broker 2 at b2:9092: refused",
                START.plusSeconds(8))), stillDegraded.reasons());
        assertEquals(HealthState.READY, cleared.state());
        assertEquals(START.plusSeconds(30), cleared.since());
        assertEquals(HealthState.READY, states.lastState());
    }

    @Test
    void drainingComesFirstAndIsNotServing() {
        // Given a degraded proxy
        ready();
        failing.add(new HealthReason("audit_sink_down", "audit sink file: disk full", START));

        // When it starts draining (readiness says not ready then)
        draining.set(true);
        readiness.set(new Readiness.Status(false, "draining", "draining: the proxy is shutting down"));
        HealthStates.Health health = states.current();

        // Then
        assertEquals(HealthState.DRAINING, health.state());
        assertEquals(List.of("draining"), health.reasons().stream().map(HealthReason::reason).toList());
        assertTrue(!health.state().serving());
    }

    @Test
    void theJsonAnswerSaysTheStateSinceWhenAndEachReason() throws Exception {
        // Given a degraded proxy
        ready();
        failing.add(new HealthReason("certificate_expiring", "expires in 3 days", START.minusSeconds(3600)));

        // When
        JsonNode json = new ObjectMapper().readTree(states.current().json());

        // Then
        assertEquals("degraded", json.path("state").asText());
        assertEquals(START.toString(), json.path("since").asText());
        assertEquals("certificate_expiring", json.path("reasons").get(0).path("reason").asText());
        assertEquals("expires in 3 days", json.path("reasons").get(0).path("detail").asText());
        assertEquals(START.minusSeconds(3600).toString(), json.path("reasons").get(0).path("since").asText());
    }
}
