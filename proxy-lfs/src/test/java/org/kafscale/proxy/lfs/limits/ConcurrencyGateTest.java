package org.kafscale.proxy.lfs.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.http.LfsException;

class ConcurrencyGateTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ConcurrencyGate gate = new ConcurrencyGate("uploads", 3, 2, registry);

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
}
