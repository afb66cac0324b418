package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Request deadlines on an {@link EmbeddedChannel}'s event loop, whose clock the test moves. */
class RequestDeadlinesTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final List<String> past = new ArrayList<>();
    private final RequestDeadlines<Request> deadlines = new RequestDeadlines<>(channel.eventLoop(),
            request -> past.add(request.name));

    private static final class Request extends RequestDeadlines.Awaiting {
        final String name;

        Request(String name) {
            this.name = name;
        }
    }

    RequestDeadlinesTest() {
        channel.freezeTime();
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void eachRequestIsHandedOnAtItsOwnDeadlineAndNotBefore() {
        // Given requests with 5 s and 1 s to wait, in that order
        deadlines.await(new Request("slow"), 5_000);
        deadlines.await(new Request("quick"), 1_000);

        // When 1 s passes, then 4 s more
        advance(Duration.ofMillis(999));
        assertEquals(List.of(), past);
        advance(Duration.ofMillis(1));
        assertEquals(List.of("quick"), past);
        advance(Duration.ofSeconds(4));

        // Then each was handed on at its deadline, once, and none is left
        assertEquals(List.of("quick", "slow"), past);
        assertEquals(0, deadlines.size());
    }

    @Test
    void answeredRequestIsNotHandedOnAndTheOthersStillAre() {
        // Given three requests, the first of them answered in time
        Request first = new Request("first");
        deadlines.await(first, 1_000);
        deadlines.await(new Request("second"), 1_000);
        deadlines.await(new Request("third"), 2_000);
        deadlines.answered(first);
        deadlines.answered(first);

        // When every deadline passes
        advance(Duration.ofSeconds(2));

        // Then only the two unanswered ones were handed on
        assertEquals(List.of("second", "third"), past.stream().sorted().toList());
        assertEquals(0, deadlines.size());
    }

    @Test
    void aRequestAnsweredFromTheMiddleLeavesTheRestInPlace() {
        Request a = new Request("a");
        Request b = new Request("b");
        Request c = new Request("c");
        deadlines.await(a, 3_000);
        deadlines.await(b, 1_000);
        deadlines.await(c, 2_000);

        deadlines.answered(b);
        assertEquals(2, deadlines.size());
        advance(Duration.ofSeconds(2));
        assertEquals(List.of("c"), past);
        advance(Duration.ofSeconds(1));
        assertEquals(List.of("c", "a"), past);
    }

    private void advance(Duration by) {
        channel.advanceTimeBy(by.toMillis(), TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }
}
