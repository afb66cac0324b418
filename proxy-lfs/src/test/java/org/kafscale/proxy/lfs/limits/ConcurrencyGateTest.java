package org.kafscale.proxy.lfs.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.http.LfsException;

class ConcurrencyGateTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ConcurrencyGate gate = new ConcurrencyGate("uploads", 3, 2, 1, registry);

    private double refused(String limit) {
        return registry.get("kafscale_lfs_proxy_uploads_refused").tag("limit", limit).counter().count();
    }

    @Test
    void oneClientGetsNoMoreThanItsShareAndTheOthersStillGetIn() {
        // Given
        gate.acquire("a");
        gate.acquire("a");

        // When
        LfsException third = assertThrows(LfsException.class, () -> gate.acquire("a"));
        ConcurrencyGate.Permit other = gate.acquire("b");

        // Then
        assertEquals(503, third.status());
        assertEquals("busy", third.code());
        assertEquals(1, refused("per_client"));
        assertEquals(3, gate.inFlight());
        other.close();
    }

    @Test
    void pastTheTotalEveryClientIsRefusedUntilAPermitIsReleased() {
        // Given
        gate.acquire("a");
        gate.acquire("b");
        ConcurrencyGate.Permit last = gate.acquire("c");

        // When
        boolean refusedWhileFull = gate.tryAcquire("d").isEmpty();
        last.close();
        last.close();

        // Then: a permit released twice frees one place, not two
        assertTrue(refusedWhileFull);
        assertEquals(1, refused("total"));
        assertTrue(gate.tryAcquire("d").isPresent());
        assertTrue(gate.tryAcquire("e").isEmpty());
        assertEquals(3, registry.get("kafscale_lfs_proxy_uploads_in_flight").gauge().value());
    }

    @Test
    void oneClientAllowedTheTotalLeavesTheReservedPermitToAClientHoldingNone() {
        // Given: one client may hold all four permits, of which one is reserved
        ConcurrencyGate wide = new ConcurrencyGate("wide", 4, 4, 1, registry);
        for (int i = 0; i < 3; i++) {
            wide.acquire("a");
        }

        // When
        boolean fourthRefused = wide.tryAcquire("a").isEmpty();
        boolean otherAdmitted = wide.tryAcquire("b").isPresent();

        // Then: the last permit went to the client holding none, and is then the total's
        assertTrue(fourthRefused);
        assertTrue(otherAdmitted);
        assertEquals(1, registry.get("kafscale_lfs_proxy_wide_refused").tag("limit", "reserved").counter().count());
        assertTrue(wide.tryAcquire("c").isEmpty());
        assertEquals(1, registry.get("kafscale_lfs_proxy_wide_refused").tag("limit", "total").counter().count());
    }

    @Test
    void theReservedPermitsMustLeaveOneForEveryone() {
        assertThrows(IllegalArgumentException.class, () -> new ConcurrencyGate("bad", 2, 2, 2, registry));
    }
}
