package org.kafscale.proxy.core.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalInt;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.security.ClientAuthenticated;
import org.slf4j.Logger;

/**
 * One client connection: hands each request to the dispatcher and its reply to the
 * {@link AnswerWriter}, which writes answers in request order under the client's correlation ids.
 * What the connection is doing is its {@link ConnectionPhase}; when it reads is the
 * {@link ReadGate}'s decision, from the reasons this handler gives it.
 *
 * <p>No request can hang the connection: each has a deadline ({@link RequestDeadlines}: the
 * request timeout, plus what its broker may hold it for, plus {@link #DEADLINE_MARGIN}); past it
 * the client gets Kafka's REQUEST_TIMED_OUT answer for that request and later answers flow again.
 * A failure in any continuation (the reply listener, the connection listener, writing) answers the
 * request or closes the connection, never leaves a slot pending. Everything that touches the
 * writer runs on the connection's event loop, whichever thread completed a reply.
 *
 * <p>Backpressure: at most {@code maxInFlight} requests are handled at once; frames read past that
 * (one socket read can hold thousands of small requests) wait in a queue, and reading from the
 * client pauses while any wait there. Reading also pauses while the client has not taken the
 * answers already written (the channel's write-buffer high-water mark), while the listener's
 * process-wide budget for unread answers is spent (answers written and unread, and answers that
 * wait for an earlier one, both count), while any of its broker channels cannot take more
 * requests, and while its half-read frame is among the largest once the listener's budget for
 * half-read frames is spent. Reading from its brokers pauses while the client's answers are not
 * taken. The connection is closed when a frame does not arrive whole within the frame read
 * timeout, or when it has been idle (nothing in flight or half-sent) for the idle timeout.
 *
 * <p>Drain ({@link #DRAIN}, sent by the listener on shutdown): stop reading, answer every request
 * already read, and close once the last answer is flushed, so no answer is cut in half and the
 * client retries whatever it sent after that on another proxy.
 */
public final class ClientConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOGGER = ConnectionLogs.LOGGER;

    /**
     * Added to each request's deadline after the request timeout and its broker's hold. The broker
     * channel's own deadline (the same timeout and hold) fires first, and the router answers from
     * that failure; the margin leaves it time to (a retry's backoff, a reconnect, merging parts),
     * so this deadline catches replies nothing will complete instead of racing a router's answer.
     * A router whose retry waits a whole second request timeout is overtaken, but by then a client
     * with Kafka's usual request timeout (the same 30 s) has given up on that request anyway.
     */
    static final Duration DEADLINE_MARGIN = Duration.ofSeconds(5);

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
    /** Frames read and not yet handed to the dispatcher: past the in-flight cap, or while the client's answers wait. */
    private final ArrayDeque<RequestFrame> queued = new ArrayDeque<>();
    private final long openedAtNanos = System.nanoTime();
    private ConnectionPhase phase = ConnectionPhase.OPEN;
    private ConnectionContext context;
    private RequestHandler dispatcher;
    private ChannelHandlerContext ctx;
    private KafkaFrameDecoder decoder;
    private HeldBytes.Holder partialFrames;
    private HeldBytes.Holder unreadAnswers;
    private ConnectionTimeouts timeouts;
    private RequestDeadlines<InFlight> deadlines;
    private AnswerWriter writer;
    private ReadGate readGate;
    /** Requests handed to the dispatcher whose handler is not done with them yet. */
    private int unsettled;
    /** Guards {@link #dispatchQueued} against re-entry from replies that complete at once. */
    private boolean dispatchingQueued;
    /** A frame was handed on during the current read batch. */
    private boolean frameReadThisBatch;
    private boolean brokersRead = true;
    /** {@link AnswerWriter#released} when brokers were last held back or released. */
    private long answersReleased;
    /** Requests read on this connection, for its access log line. */
    private long requestsRead;

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
        this.dispatcher = handlers.forConnection(context);
        this.decoder = ctx.pipeline().get(KafkaFrameDecoder.class);
        this.partialFrames = budgets.partialFrames().holder(ctx.executor(), this::partialFramesHaveRoom);
        this.unreadAnswers = budgets.unreadAnswers().holder(ctx.executor(), this::answersTaken);
        this.timeouts = new ConnectionTimeouts(ctx.executor(), budgets.frameReadTimeout(), budgets.idleTimeout(),
                this::expired);
        this.deadlines = new RequestDeadlines<>(ctx.executor(), this::timedOut);
        this.writer = new AnswerWriter(ctx, logs, context::describeClient, () -> phase.answers(), this::answersTaken,
                this::beginClose);
        this.readGate = new ReadGate(ctx.channel(), listener, timeouts::readingResumed, context::describeClient);
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
        queued.addLast(request);
        dispatchQueued();
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
            dispatchQueued();
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
        ConnectionAccessLog.closed(ctx.channel(), context, openedAtNanos, requestsRead);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            // A client going away ("Connection reset by peer", a broken pipe) is normal, not a warning.
            LOGGER.debug("Connection from client {} ended: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            logs.failures.warn("Closing connection from client {}: {}", ctx.channel().remoteAddress(), cause.toString());
            LOGGER.debug("Connection error detail", cause);
        }
        ctx.close();
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
        dispatchQueued();
        updateReading();
    }

    /** A timeout ran out (see {@link ConnectionTimeouts}). */
    private void expired(String reason) {
        if (phase.answers()) {
            logs.timedOutConnections.info("Closing connection from client {}: {}", context.describeClient(), reason);
            listener.timedOut();
            ctx.close();
            beginClose();
        }
    }

    // ---- requests: queued, dispatched, answered, settled ----

    /** Hands queued frames to the dispatcher, in order, while the caps allow. */
    private void dispatchQueued() {
        if (dispatchingQueued) {
            return;
        }
        dispatchingQueued = true;
        try {
            while (phase.answers() && !queued.isEmpty() && pauseReasons(false) == 0) {
                RequestFrame next = queued.pollFirst();
                dispatch(new InFlight(writer.reserve(next.correlationId()), next));
            }
        } finally {
            dispatchingQueued = false;
        }
    }

    private void dispatch(InFlight request) {
        unsettled++;
        requestsRead++;
        try {
            listener.requestStarted(request.request.apiKey());
        } catch (RuntimeException e) {
            listenerFailed("requestStarted", request.request, e);
        }
        Future<Reply> reply = handle(request);
        reply.addListener(f -> onHandled(request, f));
        if (!request.answered) {
            deadlines.await(request, request.deadlineMillis);
        }
    }

    /** Calls the dispatcher, noting how long the request's broker may hold it. */
    private Future<Reply> handle(InFlight request) {
        context.beginRequest();
        try {
            Future<Reply> reply = dispatcher.handle(context, request.request);
            return reply != null ? reply : ctx.executor().newSucceededFuture(
                    new Reply.Close("handling " + request.request.describe() + " gave no future"));
        } catch (RuntimeException e) {
            LOGGER.debug("Handler failure detail", e);
            return ctx.executor().newSucceededFuture(
                    new Reply.Close("handling " + request.request.describe() + " failed: " + e));
        } finally {
            long held = context.endRequest();
            long base = requestTimeoutMillis + DEADLINE_MARGIN.toMillis();
            request.deadlineMillis = held > Long.MAX_VALUE - base ? Long.MAX_VALUE : base + held;
        }
    }

    /** The handler's future completed, on whatever thread completed it. */
    private void onHandled(InFlight request, Future<?> handled) {
        if (ctx.executor().inEventLoop()) {
            settle(request, handled);
            return;
        }
        logs.offLoop.warn("Handling {} from client {} completed off the connection's event loop (a bug in its "
                + "handler); continuing on the loop", request.request.describe(), context.clientAddress());
        try {
            ctx.executor().execute(() -> settle(request, handled));
        } catch (RejectedExecutionException e) {
            // The loop has stopped: nothing can be written any more; only the buffers are left to free.
            request.request.frame().release();
            request.replyOf(handled).discard();
        }
    }

    /** The handler is done with the request: answer it (unless its deadline already did), then free its frame. */
    private void settle(InFlight request, Future<?> handled) {
        Reply reply = request.replyOf(handled);
        if (request.answered) {
            LOGGER.debug("Discarding the reply to {} from client {}: its deadline had passed",
                    request.request.describe(), context.clientAddress());
            reply.discard();
        } else {
            answer(request, reply);
        }
        try {
            request.request.frame().release();
        } finally {
            unsettled--;
            try {
                listener.requestSettled(request.request.apiKey());
            } catch (RuntimeException e) {
                listenerFailed("requestSettled", request.request, e);
            }
            if (phase.answers()) {
                dispatchQueued();
                updateReading();
                int partial = partialFrameBytes();
                timeouts.update(partial > 0, false, isIdle(partial));
            }
        }
    }

    /** The request's deadline passed with no reply: Kafka's REQUEST_TIMED_OUT answers it. */
    private void timedOut(InFlight request) {
        if (request.answered) {
            return;
        }
        Reply reply = Replies.error(request.request, Errors.REQUEST_TIMED_OUT);
        if (phase.answers()) {
            logs.timeouts.warn("{} from client {} had no answer after {} ms; {}", request.request.describe(),
                    context.clientAddress(), request.deadlineMillis,
                    reply instanceof Reply.Close ? "closing (no error answer exists)" : "answering REQUEST_TIMED_OUT");
        }
        answer(request, reply);
    }

    /** Gives the request's slot its reply, once: the handler's, or the deadline's error answer. */
    private void answer(InFlight request, Reply reply) {
        request.answered = true;
        deadlines.answered(request);
        RequestFrame frame = request.request;
        try {
            listener.requestCompleted(frame.apiKey(), frame.apiVersion(), System.nanoTime() - request.startedNanos,
                    request.requestBytes, AnswerWriter.answerBytes(reply), AnswerWriter.closes(reply));
        } catch (RuntimeException e) {
            listenerFailed("requestCompleted", frame, e);
        }
        try {
            writer.complete(request.slot, reply);
            if (phase.answers()) {
                answersMoved();
            }
            closeIfDrained();
        } catch (RuntimeException e) {
            // Writing this answer or one released behind it failed: close, so no later answer waits
            // behind a slot that will never be written.
            closeAfter("answering " + frame.describe(), e);
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
        if (writer.waiting() >= maxInFlight || unsettled >= maxInFlight) {
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
            if (reasons == 0 && !queued.isEmpty()) {
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
        if (phase instanceof ConnectionPhase.Draining && writer.waiting() == 0 && queued.isEmpty()) {
            LOGGER.debug("Drained connection from client {}", context.describeClient());
            phase = ConnectionPhase.CLOSED;
            // An empty write completes after every earlier write; it starts at the head of the
            // pipeline so the size prepender does not turn it into a zero-length frame.
            ctx.pipeline().firstContext().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void closeAfter(String what, RuntimeException e) {
        logs.failures.warn("Closing connection from client {}: {} failed: {}", context.describeClient(), what,
                e.toString());
        LOGGER.debug("Connection failure detail", e);
        ctx.close();
        beginClose();
    }

    /** A connection listener threw: logged, and the request's answer goes on regardless. */
    private void listenerFailed(String call, RequestFrame request, RuntimeException e) {
        logs.failures.warn("Connection listener failed in {} for {} from client {}: {}", call, request.describe(),
                context.clientAddress(), e.toString());
        LOGGER.debug("Connection listener failure detail", e);
    }

    /** From here on nothing is written: waiting answers and queued frames are released. */
    private void beginClose() {
        phase = ConnectionPhase.CLOSED;
        writer.discardAll();
        RequestFrame frame;
        while ((frame = queued.pollFirst()) != null) {
            frame.frame().release();
        }
    }

    private int partialFrameBytes() {
        return decoder == null ? 0 : decoder.partialFrameBytes();
    }

    private boolean isIdle(int partialBytes) {
        return partialBytes == 0 && queued.isEmpty() && writer.waiting() == 0 && unsettled == 0;
    }
}
