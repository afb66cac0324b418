package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConnectionPhaseTest {

    @Test
    void anOpenConnectionDrainsAndADrainingOrClosedOneStaysAsItIs() {
        assertSame(ConnectionPhase.DRAINING, ConnectionPhase.OPEN.drain());
        assertSame(ConnectionPhase.DRAINING, ConnectionPhase.DRAINING.drain());
        assertSame(ConnectionPhase.CLOSED, ConnectionPhase.CLOSED.drain());
    }

    @Test
    void onlyAClosedConnectionStopsAnswering() {
        assertTrue(ConnectionPhase.OPEN.answers());
        assertTrue(ConnectionPhase.DRAINING.answers());
        assertFalse(ConnectionPhase.CLOSED.answers());
    }
}
