package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class EventuallyTest {

    @Test
    void returnsAsSoonAsTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();

        Eventually.await(Duration.ofSeconds(5), "third poll", () -> polls.incrementAndGet() == 3);

        assertEquals(3, polls.get());
    }

    @Test
    void timeoutNamesWhatWasAwaitedAndCarriesTheLastFailure() {
        IllegalStateException last = new IllegalStateException("broker not ready");

        AssertionError error = assertThrows(AssertionError.class,
                () -> Eventually.await(Duration.ofMillis(50), "the broker", () -> {
                    throw last;
                }));

        assertTrue(error.getMessage().contains("the broker"), error.getMessage());
        assertTrue(error.getMessage().contains("broker not ready"), error.getMessage());
        assertSame(last, error.getCause());
    }

    @Test
    void freePortsAreNotHandedOutTwice() {
        int first = FreePorts.next();
        int second = FreePorts.next();

        assertTrue(first > 0 && second > 0 && first != second);
    }
}
