package org.kafscale.proxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.CoordinatorKind;

/** The coordinator cache stays within its bound however many ids clients send, keeping the ids in use. */
class CoordinatorCacheTest {

    @Test
    void moreDistinctIdsThanTheBoundKeepTheBoundAndCountWhatWasDropped() {
        // Given a group in steady use
        CoordinatorCache cache = new CoordinatorCache();
        cache.put(CoordinatorKind.GROUP, "steady-group", 1);
        // When a client sends twice the bound of distinct group ids, the steady group still in use between them
        for (int i = 0; i < 2 * CoordinatorCache.MAX_ENTRIES; i++) {
            cache.put(CoordinatorKind.GROUP, "probe-" + i, 2);
            assertEquals(1, cache.get(CoordinatorKind.GROUP, "steady-group"), "the group in use stays cached");
        }
        // Then the cache holds the bound, the oldest probe ids were dropped and counted
        assertEquals(CoordinatorCache.MAX_ENTRIES, cache.size());
        assertEquals(CoordinatorCache.MAX_ENTRIES + 1, cache.evictions());
        assertNull(cache.get(CoordinatorKind.GROUP, "probe-0"));
        assertEquals(2, cache.get(CoordinatorKind.GROUP, "probe-" + (2 * CoordinatorCache.MAX_ENTRIES - 1)));
    }

    @Test
    void idLongerThanTheLimitIsNotCached() {
        // Given
        CoordinatorCache cache = new CoordinatorCache();
        String longId = "g".repeat(CoordinatorCache.MAX_KEY_CHARS + 1);
        // When
        cache.put(CoordinatorKind.TRANSACTION, longId, 1);
        // Then
        assertNull(cache.get(CoordinatorKind.TRANSACTION, longId));
        assertEquals(0, cache.size());
    }

    @Test
    void groupAndTransactionalIdOfTheSameNameAreCachedApart() {
        // Given
        CoordinatorCache cache = new CoordinatorCache();
        // When
        cache.put(CoordinatorKind.GROUP, "same", 1);
        cache.put(CoordinatorKind.TRANSACTION, "same", 2);
        // Then
        assertEquals(1, cache.get(CoordinatorKind.GROUP, "same"));
        assertEquals(2, cache.get(CoordinatorKind.TRANSACTION, "same"));
    }

    @Test
    void aRefusalForgetsTheCoordinatorAndRemembersWhoRefused() {
        // Given a group whose coordinator was found
        CoordinatorCache cache = new CoordinatorCache();
        cache.put(CoordinatorKind.GROUP, "moved", 1);
        // When that broker refuses the role
        cache.refused(CoordinatorKind.GROUP, "moved", CoordinatorCache.NONE);
        // Then the group must be looked up again, with broker 1 named as the one that refused
        assertNull(cache.get(CoordinatorKind.GROUP, "moved"));
        assertEquals(1, cache.refusedBy(CoordinatorKind.GROUP, "moved"));
        // and a new answer replaces the refusal
        cache.put(CoordinatorKind.GROUP, "moved", 2);
        assertEquals(2, cache.get(CoordinatorKind.GROUP, "moved"));
        assertEquals(CoordinatorCache.NONE, cache.refusedBy(CoordinatorKind.GROUP, "moved"));
    }
}
