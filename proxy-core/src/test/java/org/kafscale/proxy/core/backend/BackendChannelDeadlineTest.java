package org.kafscale.proxy.core.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * Request deadlines on one broker channel: a broker that stays silent is a fault no real broker
 * shows on cue, so the channel here is Netty's embedded one on a clock the test moves. Every
 * request still has its own deadline, though the channel keeps a single timer for them.
 */
class BackendChannelDeadlineTest {
    private static final BrokerEndpoint BROKER = new BrokerEndpoint(1, "127.0.0.1", 9092, null);

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final BackendChannel backend = new BackendChannel(channel, BROKER);

    @BeforeEach
    void stopTheClock() {
        channel.freezeTime(); // time moves only when the test says so
    }

    @AfterEach
    void releaseWrites() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aSilentBrokerFailsTheRequestAtItsDeadlineAndClosesTheChannel() {
        // Given a request with 1 s to be answered
        Future<ByteBuf> answer = backend.request(request(), 1_000);

        // When 999 ms pass, it still waits; when the second is over, it has failed
        advance(999);
        assertFalse(answer.isDone());
        advance(1);

        // Then it failed as timed out, and the channel is closed for good
        BackendException failure = assertInstanceOf(BackendException.class, answer.cause());
        assertEquals(BackendException.Cause.TIMED_OUT, failure.failure());
        assertFalse(backend.isUsable());
    }

    @Test
    void aShorterDeadlineBehindALongPollStillFiresOnTime() {
        // Given a long poll (10 s) and, after it, a request with 1 s
        Future<ByteBuf> longPoll = backend.request(request(), 10_000);
        Future<ByteBuf> shortOne = backend.request(request(), 1_000);

        // When 1 s passes without an answer
        advance(1_000);

        // Then the channel failed at the short request's deadline, taking the long poll with it
        assertTrue(shortOne.isDone() && !shortOne.isSuccess());
        assertTrue(longPoll.isDone() && !longPoll.isSuccess());
    }

    @Test
    void answeredRequestsDoNotTimeOutAndTheNextOneKeepsItsOwnDeadline() {
        // Given a request answered at once, and a second one sent 500 ms later
        Future<ByteBuf> first = backend.request(request(), 1_000);
        backend.onResponse(answer(0));
        first.getNow().release();
        advance(500);
        Future<ByteBuf> second = backend.request(request(), 1_000);

        // When the first one's deadline passes, nothing fails
        advance(600);
        assertFalse(second.isDone());
        assertTrue(backend.isUsable());

        // Then the second fails at its own deadline, 1 s after it was sent
        advance(400);
        assertTrue(second.isDone() && !second.isSuccess());
    }

    private void advance(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    /** A frame with room for the correlation id the channel writes into it. */
    private static ByteBuf request() {
        return Unpooled.buffer(12).writeShort(0).writeShort(9).writeInt(-1).writeShort(-1);
    }

    private static ByteBuf answer(int correlationId) {
        return Unpooled.buffer(4).writeInt(correlationId);
    }
}
