package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.logging.LogFields;

/**
 * Why a connection's reading pauses, on an {@link EmbeddedChannel} with a real answer writer and
 * the listener's budgets capped at 1000 bytes each; a connection takes at most two requests at once.
 */
class ConnectionBackpressureTest {
    private static final int MAX_IN_FLIGHT = 2;

    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
    private final AnswerWriter writer = new AnswerWriter(ctx, new ConnectionLogs(), () -> "client", LogFields.NONE,
            () -> true, () -> { }, () -> { });
    private final ConnectionContext context = new ConnectionContext(channel.eventLoop(),
            new BackendChannelPool(channel.eventLoop(),
                    new BackendConnector(KafkaWire.MAX_FRAME_BYTES, Duration.ofSeconds(1))),
            channel.remoteAddress());
    private final ConnectionRequests requests = new ConnectionRequests(channel.eventLoop(), context,
            (c, request) -> c.newReply(), ConnectionListener.NONE, new ConnectionLogs(), writer, 30_000,
            new ConnectionRequests.Connection() {
                @Override
                public boolean answering() {
                    return true;
                }

                @Override
                public boolean mayDispatch() {
                    return true;
                }

                @Override
                public void answered() {
                }

                @Override
                public void settled() {
                }

                @Override
                public void failed(String what, RuntimeException e) {
                }
            });
    private final ConnectionBackpressure backpressure = new ConnectionBackpressure(channel, MAX_IN_FLIGHT, writer,
            requests, context.backends(), budgets(1000), () -> { }, () -> { });

    @AfterEach
    void releaseEverything() {
        writer.discardAll();
        backpressure.release();
        channel.finishAndReleaseAll();
    }

    @Test
    void aConnectionHoldingNothingReadsAndDispatches() {
        assertEquals(Set.of(), readPauses(false));
        assertEquals(Set.of(), dispatchPauses(false));
    }

    @Test
    void atItsMostRequestsInFlightTheConnectionNeitherReadsNorDispatches() {
        writer.reserve(1);
        writer.reserve(2);

        assertEquals(EnumSet.of(ReadPause.IN_FLIGHT_CAP), readPauses(false));
        assertEquals(EnumSet.of(ReadPause.IN_FLIGHT_CAP), dispatchPauses(false));
    }

    @Test
    void aDrainingConnectionReadsNothingButDispatchesWhatItRead() {
        assertEquals(EnumSet.of(ReadPause.DRAINING), readPauses(true));
        assertEquals(Set.of(), dispatchPauses(true));
    }

    @Test
    void aClientThatDoesNotTakeItsAnswersPausesReadingAndDispatchUnlessDraining() {
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
        channel.write(Unpooled.wrappedBuffer(new byte[32])); // written, not flushed: the client has not taken it

        assertEquals(EnumSet.of(ReadPause.CLIENT_NOT_WRITABLE), readPauses(false));
        assertEquals(EnumSet.of(ReadPause.CLIENT_NOT_WRITABLE), dispatchPauses(false));
        assertEquals(Set.of(), dispatchPauses(true));
    }

    @Test
    void answersWaitingForAnEarlierOneSpendTheUnreadAnswerBudgetAndPauseReadingAndDispatch() {
        ResponseOrderer.Slot first = writer.reserve(1);
        ResponseOrderer.Slot second = writer.reserve(2);
        writer.complete(second, Reply.send(answer(2000)));
        backpressure.answersMoved();

        // Both requests are in flight as well: the budget is a reason of its own
        assertEquals(EnumSet.of(ReadPause.IN_FLIGHT_CAP, ReadPause.UNREAD_ANSWER_BUDGET), readPauses(false));
        assertEquals(EnumSet.of(ReadPause.IN_FLIGHT_CAP, ReadPause.UNREAD_ANSWER_BUDGET), dispatchPauses(false));

        writer.complete(first, Reply.send(answer(10)));
        channel.flushOutbound();
        channel.releaseOutbound(); // the client took both
        backpressure.answersMoved();
        assertEquals(Set.of(), readPauses(false));
    }

    @Test
    void aHalfReadFrameOverTheBudgetPausesReadingButNotDispatch() {
        backpressure.partialFrame(2000);

        assertEquals(EnumSet.of(ReadPause.PARTIAL_FRAME_BUDGET), readPauses(false));
        assertEquals(Set.of(), dispatchPauses(false));

        backpressure.partialFrame(0);
        assertEquals(Set.of(), readPauses(false));
    }

    private Set<ReadPause> readPauses(boolean draining) {
        return reasons(backpressure.pauseReasons(true, draining));
    }

    private Set<ReadPause> dispatchPauses(boolean draining) {
        return reasons(backpressure.pauseReasons(false, draining));
    }

    private static Set<ReadPause> reasons(int bits) {
        Set<ReadPause> reasons = EnumSet.noneOf(ReadPause.class);
        for (ReadPause reason : ReadPause.values()) {
            if ((bits & reason.bit()) != 0) {
                reasons.add(reason);
            }
        }
        return reasons;
    }

    /** An answer of {@code bytes} bytes after the broker's correlation id. */
    private static ByteBuf answer(int bytes) {
        return ByteBufAllocator.DEFAULT.buffer(Integer.BYTES + bytes).writeInt(9000).writeZero(bytes);
    }

    private static ConnectionBudgets budgets(long capBytes) {
        ListenerLimits d = ListenerLimits.DEFAULTS;
        return new ConnectionBudgets(new ListenerLimits(d.maxConnections(), d.maxConnectionsPerIp(), d.fdHeadroom(),
                capBytes, d.frameReadTimeout(), d.idleTimeout(), d.unreadAnswerBytesPerConnection(), capBytes));
    }
}
