package org.kafscale.proxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class SingleFlightTest {

    /** Reads of a source that the test answers one by one, in the order they started. */
    private static final class Reads {
        final List<CompletableFuture<String>> started = new ArrayList<>();
        final SingleFlight<String> flight = new SingleFlight<>(() -> {
            CompletableFuture<String> read = new CompletableFuture<>();
            started.add(read);
            return read;
        });

        void answer(int index, String value) {
            started.get(index).complete(value);
        }
    }

    @Test
    void callersWhileAReadRunsShareIt() {
        // Given
        Reads reads = new Reads();
        CompletableFuture<String> first = reads.flight.current();
        // When
        CompletableFuture<String> second = reads.flight.current();
        reads.answer(0, "v1");
        // Then
        assertEquals(1, reads.started.size());
        assertSame(first, second);
        assertEquals("v1", second.join());
    }

    @Test
    void aFreshReadDoesNotJoinTheReadAlreadyRunning() {
        // Given: a read that started before the caller's news
        Reads reads = new Reads();
        reads.flight.current();
        // When
        CompletableFuture<String> fresh = reads.flight.fresh();
        // Then: nothing new starts while the old read runs, and its answer is not the fresh one's
        assertEquals(1, reads.started.size());
        reads.answer(0, "before the news");
        assertFalse(fresh.isDone());
        assertEquals(2, reads.started.size());
        reads.answer(1, "after the news");
        assertEquals("after the news", fresh.join());
    }

    @Test
    void freshCallersWhileAReadRunsShareOneFollowUp() {
        // Given
        Reads reads = new Reads();
        reads.flight.current();
        // When: three callers with news while the first read runs
        CompletableFuture<String> a = reads.flight.fresh();
        CompletableFuture<String> b = reads.flight.fresh();
        CompletableFuture<String> c = reads.flight.fresh();
        reads.answer(0, "old");
        reads.answer(1, "new");
        // Then: the source saw two reads, not four
        assertEquals(2, reads.started.size());
        assertEquals(List.of("new", "new", "new"), List.of(a.join(), b.join(), c.join()));
    }

    @Test
    void aFreshReadWithNoReadRunningStartsAtOnce() {
        // Given
        Reads reads = new Reads();
        // When
        CompletableFuture<String> fresh = reads.flight.fresh();
        // Then
        assertEquals(1, reads.started.size());
        reads.answer(0, "v1");
        assertEquals("v1", fresh.join());
    }

    @Test
    void theFollowUpStillRunsWhenTheReadBeforeItFails() {
        // Given
        Reads reads = new Reads();
        CompletableFuture<String> running = reads.flight.current();
        CompletableFuture<String> fresh = reads.flight.fresh();
        // When
        reads.started.get(0).completeExceptionally(new IllegalStateException("source unreachable"));
        // Then
        assertTrue(running.isCompletedExceptionally());
        assertEquals(2, reads.started.size());
        reads.answer(1, "v2");
        assertEquals("v2", fresh.join());
    }

    @Test
    void aCallerAfterTheReadEndsGetsANewRead() {
        // Given: one read, done
        Reads reads = new Reads();
        reads.flight.current();
        reads.answer(0, "v1");
        // When
        CompletableFuture<String> later = reads.flight.current();
        // Then
        assertEquals(2, reads.started.size());
        reads.answer(1, "v2");
        assertEquals("v2", later.join());
    }
}
