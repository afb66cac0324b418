package org.kafscale.proxy.core.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.concurrent.EarliestDeadline;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.security.ClientAuthenticated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: hands each request to the dispatcher, puts the client's correlation id
 * on each answer, and writes answers in request order.
 *
 * <p>No request can hang the connection: each has a deadline (the request timeout, plus what its
 * broker may hold it for, plus {@link #DEADLINE_MARGIN}); past it the client gets Kafka's
 * REQUEST_TIMED_OUT answer for that request and later answers flow again. A failure in any
 * continuation (the reply listener, the connection listener, writing) answers the request or
 * closes the connection, never leaves a slot pending. Everything that touches the
 * {@link ResponseOrderer} runs on the connection's event loop, whichever thread completed a reply.
 *
 * <p>Backpressure: at most {@code maxInFlight} requests are handled at once; frames read past that
 * (one socket read can hold thousands of small requests) wait in a queue, and reading from the
 * client pauses while any wait there. Reading also pauses while the client has not taken the
 * answers already written (the channel's write-buffer high-water mark, and the listener's
 * process-wide budget for unread answers), while any of its broker channels cannot take more
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
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConnectionHandler.class);
    private static final int FRAME_SIZE_BYTES = 4;

    /**
     * Added to each request's deadline after the request timeout and its broker's hold. The broker
     * channel's own deadline (the same timeout and hold) fires first, and the router answers from
     * that failure; the margin leaves it time to (a retry's backoff, a reconnect, merging parts),
     * so this deadline catches replies nothing will complete instead of racing a router's answer.
     * A router whose retry waits a whole second request timeout is overtaken, but by then a client
     * with Kafka's usual request timeout (the same 30 s) has given up on that request anyway.
     */
    static final Duration DEADLINE_MARGIN = Duration.ofSeconds(5);

    private final RequestHandlers handlers;
    private final BackendConnector connector;
    private final int maxInFlight;
    private final long requestTimeoutMillis;
    private final ConnectionListener listener;
    private final Logs logs;
    private final ConnectionBudgets budgets;
    /** The broker id whose port this connection came in on; empty on the bootstrap listener. */
    private final OptionalInt addressedBroker;
    private final ResponseOrderer orderer = new ResponseOrderer();
    /** Frames read and not yet handed to the dispatcher: past the in-flight cap, or while the client's answers wait. */
    private final ArrayDeque<RequestFrame> queued = new ArrayDeque<>();
    private ConnectionContext context;
    private RequestHandler dispatcher;
    private ChannelHandlerContext ctx;
    private KafkaFrameDecoder decoder;
    private HeldBytes.Holder partialFrames;
    private HeldBytes.Holder unreadAnswers;
    private ConnectionTimeouts timeouts;
    /** Dispatched requests with no answer yet, each at its index; their deadlines share one check. */
    private final ArrayList<InFlight> awaitingAnswer = new ArrayList<>();
    private EarliestDeadline deadlines;
    /** Requests handed to the dispatcher whose handler is not done with them yet. */
    private int unsettled;
    /** Guards {@link #dispatchQueued} against re-entry from replies that complete at once. */
    private boolean dispatchingQueued;
    /** A frame was handed on during the current read batch. */
    private boolean frameReadThisBatch;
    private boolean brokersRead = true;
    private boolean closing;
    private boolean draining;
    private final long openedAtNanos = System.nanoTime();
    /** Requests read on this connection, for its access log line. */
    private long requestsRead;

    /** The user event that starts a drain of this connection. */
    public static final Object DRAIN = new Object() {
        @Override
        public String toString() {
            return "DRAIN";
        }
    };

    /**
     * @param requestTimeout how long a broker has to answer (the listener's setting); the base of
     *     each request's deadline
     * @param logs the listener's rate-limited lines, shared by all its connections
     * @param budgets the listener's byte budgets and timeouts, shared by all its connections
     */
    ClientConnectionHandler(RequestHandlers handlers, BackendConnector connector, int maxInFlight,
                            Duration requestTimeout, ConnectionListener listener, Logs logs, ConnectionBudgets budgets) {
        this(handlers, connector, maxInFlight, requestTimeout, listener, logs, budgets, OptionalInt.empty());
    }

    /** @param addressedBroker the broker id whose port this connection came in on, if any */
    ClientConnectionHandler(RequestHandlers handlers, BackendConnector connector, int maxInFlight,
                            Duration requestTimeout, ConnectionListener listener, Logs logs, ConnectionBudgets budgets,
                            OptionalInt addressedBroker) {
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
        this.deadlines = new EarliestDeadline(ctx.executor(), this::answerPastDeadlines);
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
        if (closing || !ctx.channel().isActive()) {
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
        if (!closing) {
            int partial = decoder == null ? 0 : decoder.partialFrameBytes();
            partialFrames.hold(partial);
            timeouts.update(partial > 0, frameReadThisBatch, isIdle(partial));
            updateReading();
        }
        frameReadThisBatch = false;
        ctx.fireChannelReadComplete();
    }

    /** The listener's budget for partial frames has room again: report again, and read if this one may. */
    private void partialFramesHaveRoom() {
        if (closing) {
            return;
        }
        partialFrames.hold(decoder == null ? 0 : decoder.partialFrameBytes());
        updateReading();
    }

    private boolean isIdle(int partialBytes) {
        return partialBytes == 0 && queued.isEmpty() && orderer.waiting() == 0 && unsettled == 0;
    }

    /** Hands queued frames to the dispatcher, in order, while the caps allow. */
    private void dispatchQueued() {
        if (dispatchingQueued) {
            return;
        }
        dispatchingQueued = true;
        try {
            while (!closing && !queued.isEmpty() && mayDispatch()) {
                RequestFrame next = queued.pollFirst();
                dispatch(new InFlight(orderer.reserve(next.correlationId()), next));
            }
        } finally {
            dispatchingQueued = false;
        }
    }

    /** Below the in-flight cap, and the client takes its answers (drains go on regardless: they end in a close). */
    private boolean mayDispatch() {
        return orderer.waiting() < maxInFlight && unsettled < maxInFlight && (draining || answersFlow());
    }

    private boolean answersFlow() {
        return ctx.channel().isWritable() && !unreadAnswers.over();
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
            request.deadlineNanos = deadlines.after(request.deadlineMillis);
            request.awaitingIndex = awaitingAnswer.size();
            awaitingAnswer.add(request);
            deadlines.checkBy(request.deadlineNanos);
        }
    }

    /** The deadline check: answers each request past its deadline, then waits for the next deadline. */
    private void answerPastDeadlines() {
        long now = deadlines.now();
        List<InFlight> due = new ArrayList<>();
        InFlight next = null;
        for (InFlight request : awaitingAnswer) {
            if (EarliestDeadline.isPast(request.deadlineNanos, now)) {
                due.add(request);
            } else if (next == null || request.deadlineNanos - next.deadlineNanos < 0) {
                next = request;
            }
        }
        if (next != null) {
            deadlines.checkBy(next.deadlineNanos);
        }
        for (InFlight request : due) {
            timedOut(request);
        }
    }

    /**
     * The request has its answer: its deadline no longer counts (swapped out, so removal is O(1)).
     * The scheduled check stays when nothing is left: cancelling it here would bring back a
     * schedule and a cancel per request for a client with one request in flight; run on an empty
     * list, it just ends.
     */
    private void stopAwaiting(InFlight request) {
        int index = request.awaitingIndex;
        if (index < 0) {
            return;
        }
        request.awaitingIndex = -1;
        InFlight last = awaitingAnswer.remove(awaitingAnswer.size() - 1);
        if (last != request) {
            awaitingAnswer.set(index, last);
            last.awaitingIndex = index;
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
            request.deadlineMillis = deadlineMillis(context.endRequest());
        }
    }

    private long deadlineMillis(long heldMillis) {
        long base = requestTimeoutMillis + DEADLINE_MARGIN.toMillis();
        return heldMillis > Long.MAX_VALUE - base ? Long.MAX_VALUE : base + heldMillis;
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
            replyOf(request, handled).discard();
        }
    }

    /** The handler is done with the request: answer it (unless its deadline already did), then free its frame. */
    private void settle(InFlight request, Future<?> handled) {
        Reply reply = replyOf(request, handled);
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
            if (!closing) {
                dispatchQueued();
                updateReading();
                int partial = decoder == null ? 0 : decoder.partialFrameBytes();
                timeouts.update(partial > 0, false, isIdle(partial));
            }
        }
    }

    private static Reply replyOf(InFlight request, Future<?> handled) {
        if (!handled.isSuccess()) {
            LOGGER.debug("Reply failure detail", handled.cause());
            return new Reply.Close("handling " + request.request.describe() + " failed: " + handled.cause());
        }
        // A null would leave the slot looking pending and stall every later answer.
        return handled.getNow() instanceof Reply reply ? reply
                : new Reply.Close("handling " + request.request.describe() + " produced no reply");
    }

    private void timedOut(InFlight request) {
        if (request.answered) {
            return;
        }
        Reply reply = Replies.error(request.request, Errors.REQUEST_TIMED_OUT);
        if (!closing) {
            logs.timeouts.warn("{} from client {} had no answer after {} ms; {}", request.request.describe(),
                    context.clientAddress(), request.deadlineMillis,
                    reply instanceof Reply.Close ? "closing (no error answer exists)" : "answering REQUEST_TIMED_OUT");
        }
        answer(request, reply);
    }

    /** Gives the request's slot its reply, once: the handler's, or the deadline's error answer. */
    private void answer(InFlight request, Reply reply) {
        request.answered = true;
        stopAwaiting(request);
        RequestFrame frame = request.request;
        try {
            listener.requestCompleted(frame.apiKey(), frame.apiVersion(), System.nanoTime() - request.startedNanos,
                    request.requestBytes, answerBytes(reply), closes(reply));
        } catch (RuntimeException e) {
            listenerFailed("requestCompleted", frame, e);
        }
        try {
            onReply(request.slot, reply);
        } catch (RuntimeException e) {
            // Writing this answer or one released behind it failed: close, so no later answer waits
            // behind a slot that will never be written.
            closeAfter("answering " + frame.describe(), e);
        }
    }

    private void onReply(ResponseOrderer.Slot slot, Reply reply) {
        if (closing) {
            reply.discard();
            return;
        }
        orderer.complete(slot, reply, this::write);
        ctx.flush();
        if (!closing) {
            countUnreadAnswers();
            dispatchQueued();
            updateReading();
        }
        closeIfDrained();
    }

    /**
     * Reports the bytes of answers written and not yet taken by the client: after each batch of
     * answers, at each writability change, and when the last answer of a batch has been taken
     * (without that, the count would change only at the write-buffer water marks, and a
     * connection below the low mark would keep counting answers its client read long ago).
     */
    private long countUnreadAnswers() {
        ChannelOutboundBuffer outbound = ctx.channel().unsafe().outboundBuffer();
        long pending = outbound == null ? 0 : outbound.totalPendingWriteBytes();
        unreadAnswers.hold(pending);
        updateBrokerReading();
        return pending;
    }

    /** The client took answers (or the listener's budget for unread answers has room again): look again. */
    private void answersTaken() {
        if (closing) {
            return;
        }
        countUnreadAnswers();
        dispatchQueued();
        updateReading();
    }

    /** Brokers' answers are read only while the client takes its own. */
    private void updateBrokerReading() {
        boolean read = answersFlow();
        if (read != brokersRead) {
            brokersRead = read;
            context.backends().setAutoRead(read);
        }
    }

    /** A timeout ran out (see {@link ConnectionTimeouts}). */
    private void expired(String reason) {
        if (closing) {
            return;
        }
        logs.timedOutConnections.info("Closing connection from client {}: {}", context.describeClient(), reason);
        listener.timedOut();
        ctx.close();
        beginClose();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == DRAIN) {
            draining = true;
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

    /** During a drain: once every request read has its answer written, close after the flush. */
    private void closeIfDrained() {
        if (draining && !closing && orderer.waiting() == 0 && queued.isEmpty()) {
            LOGGER.debug("Drained connection from client {}", context.describeClient());
            closing = true;
            // An empty write completes after every earlier write; it starts at the head of the
            // pipeline so the size prepender does not turn it into a zero-length frame.
            ctx.pipeline().firstContext().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Writes one answer at its turn (a failure here is caught by {@link #answer}, which closes the connection). */
    private void write(ResponseOrderer.Slot slot) {
        Reply reply = slot.reply;
        if (closing) {
            reply.discard();
            return;
        }
        if (reply instanceof Reply.Send send) {
            // The last answer of a batch says when the client has taken the batch (see countUnreadAnswers).
            ChannelPromise written = orderer.headReady() ? ctx.voidPromise()
                    : ctx.newPromise().addListener(f -> answersTaken());
            ctx.write(withClientCorrelationId(send.frame(), slot), written);
        } else if (reply instanceof Reply.SendAndClose send) {
            logs.answeredAndClosed.info("Closing connection from client {} after answering: {}",
                    context.describeClient(), send.reason());
            ctx.writeAndFlush(withClientCorrelationId(send.frame(), slot)).addListener(ChannelFutureListener.CLOSE);
            beginClose();
        } else if (reply instanceof Reply.Close close) {
            logs.closes.warn("Closing connection from client {}: {}", context.describeClient(), close.reason());
            ctx.flush();
            ctx.close();
            beginClose();
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

    private static int answerBytes(Reply reply) {
        if (reply instanceof Reply.Send send) {
            return FRAME_SIZE_BYTES + send.frame().readableBytes();
        }
        if (reply instanceof Reply.SendAndClose send) {
            return FRAME_SIZE_BYTES + send.frame().readableBytes();
        }
        return 0;
    }

    private static boolean closes(Reply reply) {
        return reply instanceof Reply.SendAndClose || reply instanceof Reply.Close;
    }

    /** Puts the client's correlation id on the answer; an answer too short to hold one is released and refused. */
    private static ByteBuf withClientCorrelationId(ByteBuf frame, ResponseOrderer.Slot slot) {
        if (frame.readableBytes() < Integer.BYTES) {
            int size = frame.readableBytes();
            frame.release();
            throw new IllegalArgumentException("an answer of " + size + " bytes has no correlation id");
        }
        frame.setInt(frame.readerIndex(), slot.clientCorrelationId);
        return frame;
    }

    private void beginClose() {
        closing = true;
        orderer.discardAll();
        releaseQueued();
    }

    private void releaseQueued() {
        RequestFrame frame;
        while ((frame = queued.pollFirst()) != null) {
            frame.frame().release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (!closing) {
            countUnreadAnswers();
            dispatchQueued();
            updateReading();
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void updateReading() {
        if (ctx == null) {
            return;
        }
        boolean read = !closing && !draining && queued.isEmpty() && mayDispatch() && !partialFrames.over()
                && context.backends().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
            if (read) {
                timeouts.readingResumed();
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        orderer.discardAll();
        releaseQueued();
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

    /** One request from its read until its handler is done with it. Confined to the event loop. */
    private static final class InFlight {
        final ResponseOrderer.Slot slot;
        final RequestFrame request;
        final long startedNanos = System.nanoTime();
        final int requestBytes;
        long deadlineMillis;
        /** When (on the event loop's clock) the request is answered REQUEST_TIMED_OUT if nothing else answered it. */
        long deadlineNanos;
        /** Its place in {@link #awaitingAnswer}, or -1 when not there. */
        int awaitingIndex = -1;
        /** The slot has its reply (the handler's or the deadline's); any later reply is discarded. */
        boolean answered;

        InFlight(ResponseOrderer.Slot slot, RequestFrame request) {
            this.slot = slot;
            this.request = request;
            this.requestBytes = FRAME_SIZE_BYTES + request.frame().readableBytes();
        }
    }

    /**
     * The lines a connection may log once per request (or per connection), each kind
     * rate-limited across every connection of one listener: a failing broker or a fleet of
     * misbehaving clients must not turn into a line per request. One instance per listener, so
     * each proxy started in a JVM logs its own first line of each kind.
     */
    static final class Logs {
        final RateLimitedLog timeouts = RateLimitedLog.every10Seconds(LOGGER);
        final RateLimitedLog closes = RateLimitedLog.every10Seconds(LOGGER);
        final RateLimitedLog answeredAndClosed = RateLimitedLog.every10Seconds(LOGGER);
        final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);
        final RateLimitedLog offLoop = RateLimitedLog.every10Seconds(LOGGER);
        final RateLimitedLog timedOutConnections = RateLimitedLog.every10Seconds(LOGGER);
    }

    /** Told when client connections open and close and when each request is answered (metrics, drain). */
    public interface ConnectionListener {
        ConnectionListener NONE = new ConnectionListener() {
        };

        default void opened() {
        }

        default void closed() {
        }

        /**
         * A connection was refused as soon as it was accepted.
         *
         * @param limit the limit it was past: {@code total} or {@code per_ip}
         */
        default void refused(String limit) {
        }

        /** A connection was closed by its frame read timeout or its idle timeout. */
        default void timedOut() {
        }

        /**
         * A request was read and is being handled; {@link #requestCompleted} and then
         * {@link #requestSettled} follow for each.
         */
        default void requestStarted(short apiKey) {
        }

        /**
         * One request was answered (by its handler, or with REQUEST_TIMED_OUT at its deadline).
         * Called on the connection's event loop: must be cheap.
         *
         * @param nanos from reading the request to its reply being ready
         * @param requestBytes bytes read, size prefix included
         * @param answerBytes bytes of the answer, size prefix included (0 when Kafka defines none)
         * @param closedConnection the reply closes the connection (not ready, or no answer exists)
         */
        default void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes, int answerBytes,
                                      boolean closedConnection) {
        }

        /**
         * The request's handler is done with it and its frame is released: at its answer, or later
         * when a deadline answered first. A close waits for these, so no router is cut off holding a
         * buffer. Called on the connection's event loop.
         */
        default void requestSettled(short apiKey) {
        }
    }
}
