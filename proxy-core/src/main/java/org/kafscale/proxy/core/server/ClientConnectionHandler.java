package org.kafscale.proxy.core.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.OptionalInt;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.security.ClientAuthenticated;
import org.slf4j.Logger;

/**
 * One client connection, as Netty sees it: this handler only turns Netty's events into calls on
 * the parts that do the work. {@link ConnectionRequests} takes each request from its read to its
 * settlement (queue past the in-flight cap, dispatch, deadline, answer); {@link AnswerWriter}
 * writes answers in request order under the client's correlation ids; {@link ReadGate} pauses and
 * resumes reading for the reasons this handler gives it; {@link ConnectionPhase} says whether the
 * connection is open, draining or closed. All of it runs on the connection's event loop.
 *
 * <p>Backpressure: reading from the client pauses while the connection has its most requests in
 * flight (frames read past that wait in the queue), while the client has not taken the answers
 * already written (the channel's write-buffer high-water mark), while the listener's process-wide
 * budget for unread answers is spent (answers written and unread, and answers that wait for an
 * earlier one, both count), while any of its broker channels cannot take more requests, and while
 * its half-read frame is among the largest once the listener's budget for half-read frames is
 * spent. Reading from its brokers pauses while the client's answers are not taken. The connection
 * is closed when a frame does not arrive whole within the frame read timeout, or when it has been
 * idle (nothing in flight or half-sent) for the idle timeout.
 *
 * <p>Drain ({@link #DRAIN}, sent by the listener on shutdown): stop reading, answer every request
 * already read, and close once the last answer is flushed, so no answer is cut in half and the
 * client retries whatever it sent after that on another proxy.
 */
public final class ClientConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOGGER = ConnectionLogs.LOGGER;

    /** The user event that starts a drain of this connection. */
    public static final Object DRAIN = new Object() {
        @Override
        public String toString() {
            return "DRAIN";
        }
    };

    private final RequestHandlers handlers;
    private final BackendConnector connector;
    private final int maxInFlight;
    private final long requestTimeoutMillis;
    private final ConnectionListener listener;
    private final ConnectionLogs logs;
    private final ConnectionBudgets budgets;
    /** The broker id whose port this connection came in on; empty on the bootstrap listener. */
    private final OptionalInt addressedBroker;
    private final long openedAtNanos = System.nanoTime();
    private ConnectionPhase phase = ConnectionPhase.OPEN;
    private ConnectionContext context;
    private ChannelHandlerContext ctx;
    private KafkaFrameDecoder decoder;
    private HeldBytes.Holder partialFrames;
    private HeldBytes.Holder unreadAnswers;
    private ConnectionTimeouts timeouts;
    private ConnectionRequests requests;
    private AnswerWriter writer;
    private ReadGate readGate;
    /** A frame was handed on during the current read batch. */
    private boolean frameReadThisBatch;
    private boolean brokersRead = true;
    /** {@link AnswerWriter#released} when brokers were last held back or released. */
    private long answersReleased;

    /**
     * @param requestTimeout how long a broker has to answer (the listener's setting); the base of
     *     each request's deadline
     * @param logs the listener's rate-limited lines, shared by all its connections
     * @param budgets the listener's byte budgets and timeouts, shared by all its connections
     * @param addressedBroker the broker id whose port this connection came in on, if any
     */
    ClientConnectionHandler(RequestHandlers handlers, BackendConnector connector, int maxInFlight,
                            Duration requestTimeout, ConnectionListener listener, ConnectionLogs logs,
                            ConnectionBudgets budgets, OptionalInt addressedBroker) {
        this.addressedBroker = addressedBroker;
        this.handlers = handlers;
        this.connector = connector;
        this.maxInFlight = maxInFlight;
        this.requestTimeoutMillis = requestTimeout.toMillis();
        this.listener = listener;
        this.logs = logs;
        this.budgets = budgets;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.context = new ConnectionContext(ctx.channel().eventLoop(),
                new BackendChannelPool(ctx.channel().eventLoop(), connector), ctx.channel().remoteAddress(),
                addressedBroker);
        ctx.channel().attr(LogFields.OF_CHANNEL).set(context);
        this.decoder = ctx.pipeline().get(KafkaFrameDecoder.class);
        this.partialFrames = budgets.partialFrames().holder(ctx.executor(), this::partialFramesHaveRoom);
        this.unreadAnswers = budgets.unreadAnswers().holder(ctx.executor(), this::answersTaken);
        this.timeouts = new ConnectionTimeouts(ctx.executor(), budgets.frameReadTimeout(), budgets.idleTimeout(),
                this::expired);
        this.writer = new AnswerWriter(ctx, logs, context::describeClient, context, () -> phase.answers(),
                this::answersTaken, this::beginClose);
        this.requests = new ConnectionRequests(ctx.executor(), context, handlers.forConnection(context), listener, logs,
                writer, requestTimeoutMillis, new ConnectionRequests.Connection() {
                    @Override
                    public boolean answering() {
                        return phase.answers();
                    }

                    @Override
                    public boolean mayDispatch() {
                        return pauseReasons(false) == 0;
                    }

                    @Override
                    public void answered() {
                        if (phase.answers()) {
                            answersMoved();
                        }
                        closeIfDrained();
                    }

                    @Override
                    public void settled() {
                        updateReading();
                        int partial = partialFrameBytes();
                        timeouts.update(partial > 0, false, isIdle(partial));
                    }

                    @Override
                    public void failed(String what, RuntimeException e) {
                        closeAfter(what, e);
                    }
                });
        this.readGate = new ReadGate(ctx.channel(), listener, timeouts::readingResumed, context::describeClient,
                context);
        context.backends().onWritabilityChanged(this::updateReading);
        listener.opened();
        timeouts.update(false, false, true);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RequestFrame request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        // A handler before this one (a decoder) may have closed the connection earlier in this read.
        if (!phase.answers() || !ctx.channel().isActive()) {
            request.frame().release();
            return;
        }
        frameReadThisBatch = true;
        context.clientIdSeen(request.clientId());
        requests.add(request);
        updateReading();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (phase.answers()) {
            int partial = partialFrameBytes();
            partialFrames.hold(partial);
            timeouts.update(partial > 0, frameReadThisBatch, isIdle(partial));
            updateReading();
        }
        frameReadThisBatch = false;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (phase.answers()) {
            answersMoved();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == DRAIN) {
            phase = phase.drain();
            requests.dispatchQueued();
            updateReading();
            closeIfDrained();
            return;
        }
        if (event instanceof ClientAuthenticated authenticated) {
            context.authenticatedAs(authenticated.principal());
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        beginClose();
        readGate.stop();
        timeouts.stop();
        partialFrames.release();
        unreadAnswers.release();
        context.backends().closeAll("client " + context.clientAddress() + " disconnected");
        context.closed();
        listener.closed();
        ConnectionAccessLog.closed(ctx.channel(), context, openedAtNanos, requests.read());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            // A client going away ("Connection reset by peer", a broken pipe) is normal, not a warning.
            fields().addTo(LOGGER.atDebug()).log("Connection from client {} ended: {}", ctx.channel().remoteAddress(),
                    cause.toString());
        } else {
            logs.failures.warn(fields(), "Closing connection from client {}: {}", ctx.channel().remoteAddress(),
                    cause.toString());
            fields().addTo(LOGGER.atDebug()).setCause(cause).log("Connection error detail");
        }
        ctx.close();
    }

    /** The connection's log fields; none before the connection is active (an error that early has no id yet). */
    private LogFields fields() {
        return context != null ? context : LogFields.NONE;
    }

    /** The listener's budget for partial frames has room again: report again, and read if this one may. */
    private void partialFramesHaveRoom() {
        if (phase.answers()) {
            partialFrames.hold(partialFrameBytes());
            updateReading();
        }
    }

    /** The client took answers (or the listener's budget for unread answers has room again): look again. */
    private void answersTaken() {
        if (phase.answers()) {
            answersMoved();
        }
    }

    /** Answers were written or taken: count what the client holds, then dispatch and read as that allows. */
    private void answersMoved() {
        unreadAnswers.hold(writer.unreadBytes());
        holdBackBrokersAhead();
        updateBrokerReading();
        requests.dispatchQueued();
        updateReading();
    }

    /** A timeout ran out (see {@link ConnectionTimeouts}). */
    private void expired(String reason) {
        if (phase.answers()) {
            logs.timedOutConnections.info(context, "Closing connection from client {}: {}", context.describeClient(),
                    reason);
            listener.timedOut();
            ctx.close();
            beginClose();
        }
    }

    // ---- reading, closing ----

    /**
     * Why reading from the client should pause now, as {@link ReadPause} bits; {@code 0} reads.
     * Dispatching asks the same but for the drain and the broker and partial-frame budgets: a
     * draining connection answers what it read, and a request waiting for a broker channel's room
     * waits in that channel.
     */
    private int pauseReasons(boolean forReading) {
        int reasons = 0;
        boolean draining = phase instanceof ConnectionPhase.Draining;
        if (writer.waiting() >= maxInFlight || requests.unsettled() >= maxInFlight) {
            reasons |= ReadPause.IN_FLIGHT_CAP.bit();
        }
        if (!draining || forReading) {
            if (!ctx.channel().isWritable()) {
                reasons |= ReadPause.CLIENT_NOT_WRITABLE.bit();
            }
            if (unreadAnswers.over()) {
                reasons |= ReadPause.UNREAD_ANSWER_BUDGET.bit();
            }
        }
        if (forReading) {
            if (draining) {
                reasons |= ReadPause.DRAINING.bit();
            }
            if (partialFrames.over()) {
                reasons |= ReadPause.PARTIAL_FRAME_BUDGET.bit();
            }
            if (!context.backends().isWritable()) {
                reasons |= ReadPause.BROKER_NOT_WRITABLE.bit();
            }
            if (reasons == 0 && requests.hasQueued()) {
                reasons = ReadPause.IN_FLIGHT_CAP.bit(); // frames wait for a slot
            }
        }
        return reasons;
    }

    private void updateReading() {
        if (ctx != null && phase.answers()) {
            readGate.update(pauseReasons(true));
        }
    }

    /**
     * Brokers' answers are read while the client takes its own. While answers wait in the writer
     * for an earlier one, the channels are read regardless (but those held back): the earlier
     * answer comes from one of them.
     */
    private void updateBrokerReading() {
        boolean read = ctx.channel().isWritable() && (!unreadAnswers.over() || writer.heldBytes() > 0);
        if (read != brokersRead) {
            brokersRead = read;
            context.backends().setAutoRead(read);
        }
    }

    /**
     * Over the unread-answer budget, a broker channel that delivers an answer which must wait for
     * an earlier one stops being read: without this, every request already in flight could land
     * in the writer. The channel with the earlier answer has delivered nothing that waits, so it
     * is still read; once the head of the line moves (or the budget has room) all are read again.
     * One case waits longer: a channel that carries the earlier answer behind a later request's
     * (its part was sent after the later one's, on the same channel) is held back too, and the
     * earlier request is answered at its deadline; this needs the budget spent as well.
     */
    private void holdBackBrokersAhead() {
        long released = writer.released();
        if (released != answersReleased || !unreadAnswers.over()) {
            answersReleased = released;
            context.backends().releaseHeldBack();
        } else if (writer.heldBytes() > 0) {
            context.backends().holdBackDelivering();
        }
    }

    /** During a drain: once every request read has its answer written, close after the flush. */
    private void closeIfDrained() {
        if (phase instanceof ConnectionPhase.Draining && writer.waiting() == 0 && !requests.hasQueued()) {
            context.atDebug(LOGGER).log("Drained connection from client {}", context.describeClient());
            phase = ConnectionPhase.CLOSED;
            // An empty write completes after every earlier write; it starts at the head of the
            // pipeline so the size prepender does not turn it into a zero-length frame.
            ctx.pipeline().firstContext().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void closeAfter(String what, RuntimeException e) {
        logs.failures.warn(context, "Closing connection from client {}: {} failed: {}", context.describeClient(), what,
                e.toString());
        context.atDebug(LOGGER).setCause(e).log("Connection failure detail");
        ctx.close();
        beginClose();
    }

    /** From here on nothing is written: waiting answers and queued frames are released. */
    private void beginClose() {
        phase = ConnectionPhase.CLOSED;
        writer.discardAll();
        requests.releaseQueued();
    }

    private int partialFrameBytes() {
        return decoder == null ? 0 : decoder.partialFrameBytes();
    }

    private boolean isIdle(int partialBytes) {
        return partialBytes == 0 && !requests.hasQueued() && writer.waiting() == 0 && requests.unsettled() == 0;
    }
}
