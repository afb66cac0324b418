package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The shared byte budget: who is paused over the cap, and who is woken under it. */
class HeldBytesTest {
    private final HeldBytes budget = new HeldBytes(1000);
    private final AtomicInteger wakes = new AtomicInteger();

    @Test
    void underTheCapNobodyIsPaused() {
        // Given two holders
        HeldBytes.Holder a = budget.holder(ImmediateEventExecutor.INSTANCE, wakes::incrementAndGet);
        HeldBytes.Holder b = budget.holder(ImmediateEventExecutor.INSTANCE, wakes::incrementAndGet);

        // When they hold 900 bytes together
        boolean aOver = a.hold(600);
        boolean bOver = b.hold(300);

        // Then neither is told to pause, and the sum is counted
        assertFalse(aOver);
        assertFalse(bOver);
        assertEquals(900, budget.total());
    }

    @Test
    void overTheCapTheLargeHolderIsPausedAndTheSmallOneGoesOn() {
        // Given a holder of 900 bytes and one of 50
        HeldBytes.Holder large = budget.holder(ImmediateEventExecutor.INSTANCE, wakes::incrementAndGet);
        HeldBytes.Holder small = budget.holder(ImmediateEventExecutor.INSTANCE, wakes::incrementAndGet);
        large.hold(900);
        small.hold(50);

        // When each reports again, the large one past the cap
        boolean largeOver = large.hold(990);
        boolean smallOver = small.hold(60);

        // Then the large one (over an even share of 500) pauses and the small one does not
        assertTrue(largeOver);
        assertFalse(smallOver);
    }

    @Test
    void pausedHolderIsWokenOnceTheSumFallsUnderTheCap() {
        // Given a paused holder
        HeldBytes.Holder large = budget.holder(ImmediateEventExecutor.INSTANCE, wakes::incrementAndGet);
        HeldBytes.Holder other = budget.holder(ImmediateEventExecutor.INSTANCE, () -> { });
        other.hold(400);
        assertTrue(large.hold(700));

        // When the other holder's bytes are freed
        other.release();

        // Then the paused one is woken once, and is no longer over when it looks again
        assertEquals(1, wakes.get());
        assertFalse(large.hold(700));
        assertEquals(700, budget.total());
    }
}
