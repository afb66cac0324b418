package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ClientBackoffTest {

    @Test
    void pausesGrowByTheMultiplierUpToTheLongest() {
        // Given a backoff of 25 ms doubling up to 400 ms, without jitter
        ClientBackoff backoff = new ClientBackoff(25, 2, 400, 0);

        // When / Then the pauses are 25, 50, 100 ms ... and never more than 400 ms
        assertEquals(25, backoff.millis(0));
        assertEquals(50, backoff.millis(1));
        assertEquals(100, backoff.millis(2));
        assertEquals(400, backoff.millis(10));
    }

    @Test
    void jitterKeepsEachPauseWithinItsShareOfTheNominalPause() {
        // Given a backoff of 100 ms with 20 % jitter
        ClientBackoff backoff = new ClientBackoff(100, 2, 400, 0.2);

        // When / Then every first pause lies between 80 and 120 ms
        IntStream.range(0, 200).mapToLong(i -> backoff.millis(0))
                .forEach(pause -> assertTrue(pause >= 80 && pause <= 120, "pause " + pause));
    }
}
