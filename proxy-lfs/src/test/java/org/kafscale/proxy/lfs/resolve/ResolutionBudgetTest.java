package org.kafscale.proxy.lfs.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ResolutionBudgetTest {

    @Test
    void aReservationThatFitsIsGrantedAtOnce() {
        ResolutionBudget budget = new ResolutionBudget(100);

        CompletableFuture<ResolutionBudget.Reservation> granted = budget.reserve(60);

        assertTrue(granted.isDone());
        assertEquals(60, budget.held());
    }

    @Test
    void aReservationPastTheBudgetWaitsUntilEnoughIsReleased() {
        // Given 60 of 100 held
        ResolutionBudget budget = new ResolutionBudget(100);
        ResolutionBudget.Reservation first = budget.reserve(60).join();

        // When 50 more are asked for
        CompletableFuture<ResolutionBudget.Reservation> second = budget.reserve(50);

        // Then they wait, and are granted once the first is given back
        assertFalse(second.isDone());
        assertEquals(1, budget.waiting());
        first.close();
        assertTrue(second.isDone());
        assertEquals(50, budget.held());
        assertEquals(0, budget.waiting());
    }

    @Test
    void waitersAreServedInOrderSoASmallOneDoesNotPassALargeOne() {
        ResolutionBudget budget = new ResolutionBudget(100);
        ResolutionBudget.Reservation held = budget.reserve(90).join();
        CompletableFuture<ResolutionBudget.Reservation> large = budget.reserve(80);

        // A small one that would fit now still waits behind the large one
        CompletableFuture<ResolutionBudget.Reservation> small = budget.reserve(5);
        assertFalse(small.isDone());

        held.close();
        assertTrue(large.isDone());
        assertTrue(small.isDone());
        assertEquals(85, budget.held());
    }

    @Test
    void aReservationLargerThanTheBudgetGoesAloneOnceNothingIsHeld() {
        ResolutionBudget budget = new ResolutionBudget(100);
        ResolutionBudget.Reservation small = budget.reserve(10).join();

        CompletableFuture<ResolutionBudget.Reservation> huge = budget.reserve(500);
        assertFalse(huge.isDone());

        small.close();
        assertTrue(huge.isDone());
        assertEquals(500, budget.held());
        // Nothing else gets in beside it
        assertFalse(budget.reserve(1).isDone());
    }

    @Test
    void closingAReservationTwiceGivesItBackOnce() {
        ResolutionBudget budget = new ResolutionBudget(100);
        ResolutionBudget.Reservation r = budget.reserve(40).join();
        budget.reserve(30).join();

        r.close();
        r.close();

        assertEquals(30, budget.held());
    }
}
