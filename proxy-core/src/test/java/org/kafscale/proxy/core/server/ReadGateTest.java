package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.core.logging.LogFields;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The read gate on an {@link EmbeddedChannel} whose clock the test moves. */
class ReadGateTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final Map<ReadPause, Long> pausedNanos = new EnumMap<>(ReadPause.class);
    private int resumes;
    private final ReadGate gate = new ReadGate(channel, new ConnectionListener() {
        @Override
        public void readsPaused(ReadPause reason, long nanos) {
            pausedNanos.merge(reason, nanos, Long::sum);
        }
    }, () -> resumes++, () -> "client", LogFields.NONE);

    ReadGateTest() {
        channel.freezeTime();
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aReasonPausesReadingUntilItEndsAndItsTimeIsCounted() {
        // Given a connection that is read
        assertTrue(channel.config().isAutoRead());

        // When the in-flight cap pauses it for 3 s
        gate.update(ReadPause.IN_FLIGHT_CAP.bit());
        assertFalse(channel.config().isAutoRead());
        assertTrue(gate.pausedFor(ReadPause.IN_FLIGHT_CAP));
        advance(Duration.ofSeconds(3));
        gate.update(0);

        // Then it is read again, and the 3 s count for the in-flight cap
        assertTrue(channel.config().isAutoRead());
        assertEquals(1, resumes);
        assertEquals(Map.of(ReadPause.IN_FLIGHT_CAP, Duration.ofSeconds(3).toNanos()), pausedNanos);
    }

    @Test
    void reasonsInForceTogetherEachCountTheirOwnTime() {
        // When the client is not writable for 3 s, and the broker channel for the first 1 s of them
        gate.update(ReadPause.CLIENT_NOT_WRITABLE.bit() | ReadPause.BROKER_NOT_WRITABLE.bit());
        advance(Duration.ofSeconds(1));
        gate.update(ReadPause.CLIENT_NOT_WRITABLE.bit());

        // Then reading stays paused while one reason is left
        assertFalse(channel.config().isAutoRead());
        assertEquals(0, resumes);
        advance(Duration.ofSeconds(2));
        gate.update(0);

        // And each reason counts its own time
        assertEquals(Map.of(ReadPause.BROKER_NOT_WRITABLE, Duration.ofSeconds(1).toNanos(),
                ReadPause.CLIENT_NOT_WRITABLE, Duration.ofSeconds(3).toNanos()), pausedNanos);
        assertEquals(1, resumes);
    }

    @Test
    void theSameReasonsAgainChangeNothing() {
        gate.update(ReadPause.UNREAD_ANSWER_BUDGET.bit());
        advance(Duration.ofSeconds(1));
        gate.update(ReadPause.UNREAD_ANSWER_BUDGET.bit());
        advance(Duration.ofSeconds(1));
        gate.update(0);

        assertEquals(Map.of(ReadPause.UNREAD_ANSWER_BUDGET, Duration.ofSeconds(2).toNanos()), pausedNanos);
    }

    @Test
    void closingEndsThePausesInForceAndLaterUpdatesChangeNothing() {
        // Given a draining connection paused for 5 s
        gate.update(ReadPause.DRAINING.bit() | ReadPause.PARTIAL_FRAME_BUDGET.bit());
        advance(Duration.ofSeconds(5));

        // When it closes, and something asks to read again afterwards
        gate.stop();
        gate.update(0);
        gate.stop();

        // Then the 5 s count once for each reason, and nothing resumed
        assertEquals(Map.of(ReadPause.DRAINING, Duration.ofSeconds(5).toNanos(),
                ReadPause.PARTIAL_FRAME_BUDGET, Duration.ofSeconds(5).toNanos()), pausedNanos);
        assertEquals(0, resumes);
        assertFalse(channel.config().isAutoRead());
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheGate() {
        ReadGate throwing = new ReadGate(channel, new ConnectionListener() {
            @Override
            public void readsPaused(ReadPause reason, long nanos) {
                throw new IllegalStateException("metrics broke");
            }
        }, () -> resumes++, () -> "client", LogFields.NONE);

        throwing.update(ReadPause.IN_FLIGHT_CAP.bit());
        throwing.update(0);

        assertTrue(channel.config().isAutoRead());
        assertEquals(1, resumes);
    }

    @Test
    void reasonsAreNamedByTheirMetricLabels() {
        assertEquals(java.util.List.of("in_flight_cap", "broker_not_writable"),
                ReadGate.describe(ReadPause.IN_FLIGHT_CAP.bit() | ReadPause.BROKER_NOT_WRITABLE.bit()));
    }

    private void advance(Duration by) {
        channel.advanceTimeBy(by.toMillis(), TimeUnit.MILLISECONDS);
    }
}
