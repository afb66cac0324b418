package org.kafscale.proxy.core.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meter on a clock the test moves: what it lets through, and how long it throttles past that. */
class RateMeterTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aClientMayRunOneSecondAheadOfItsRateBeforeItIsThrottled() {
        RateMeter meter = new RateMeter(1000);

        // One second's worth at once passes; the next 500 bytes put it half a second past its burst
        assertEquals(0, meter.count(1000, 0));
        assertEquals(SECOND / 2, meter.count(500, 0));
    }

    @Test
    void aClientThatWaitedOutItsThrottleIsWithinItsRateAgain() {
        RateMeter meter = new RateMeter(1000);
        long wait = meter.count(3000, 0);
        assertEquals(2 * SECOND, wait);

        // After the wait it may send at its rate without a new throttle
        assertEquals(0, meter.count(1000, wait + SECOND));
    }

    @Test
    void idleTimeIsNotSavedUpBeyondOneBurst() {
        RateMeter meter = new RateMeter(1000);
        meter.count(1000, 0);

        // A minute idle buys one second's worth, not sixty
        long later = 60 * SECOND;
        assertEquals(0, meter.count(1000, later));
        assertEquals(SECOND, meter.count(1000, later));
    }

    @Test
    void overAnySpanAClientThatHonoursItsThrottlesSendsAtMostItsRatePlusOneBurst() {
        // A client that sends 700 bytes, waits what it is told, and sends again, for 20 seconds
        RateMeter meter = new RateMeter(10_000);
        long now = 0;
        long sent = 0;
        while (now < 20 * SECOND) {
            sent += 700;
            now += meter.count(700, now);
        }
        long allowed = 10_000 * 21 + 700;
        assertTrue(sent <= allowed, sent + " bytes in 20 s, allowed " + allowed);
        assertTrue(sent >= 10_000 * 20, sent + " bytes in 20 s: held below its rate");
    }

    @Test
    void aMeterNeedsARate() {
        assertThrows(IllegalArgumentException.class, () -> new RateMeter(0));
    }
}
