package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.slf4j.Logger;

/**
 * The requests of one client connection from their read to their settlement: frames wait in a
 * queue past the in-flight cap, are handed to the dispatcher in order, are answered once (by their
 * handler, or with REQUEST_TIMED_OUT at their {@link RequestDeadlines deadline}: the request
 * timeout, plus what its broker may hold it for, plus {@link #DEADLINE_MARGIN}) through the
 * {@link AnswerWriter}, and settle when their handler is done with their frame. A failure in any
 * continuation (the reply listener, the connection listener, writing) answers the request or
 * closes the connection, never leaves a slot pending. Confined to the connection's event loop;
 * a reply completed on another thread is carried back to it.
 */
final class ConnectionRequests {
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

    /** What the connection does around its requests. */
    interface Connection {
        /** Whether answers are still written (the connection is not closed). */
        boolean answering();

        /** Whether the next queued frame may be dispatched now (caps, budgets, client writability). */
        boolean mayDispatch();

        /** An answer was handed to the writer; may throw when writing failed. */
        void answered();

        /** A request settled (the connection is still answering): look at reading and timeouts again. */
        void settled();

        /** {@code what} failed: the connection closes. */
        void failed(String what, RuntimeException e);
    }

    private final ArrayDeque<RequestFrame> queued = new ArrayDeque<>();
    private final EventExecutor loop;
    private final ConnectionContext context;
    private final RequestHandler dispatcher;
    private final ConnectionListener listener;
    private final ConnectionLogs logs;
    private final AnswerWriter writer;
    /** {@link #held}, made once: told by each request of a hold named after its handle call returned. */
    private final Consumer<InFlight> heldLater = this::held;
    private final long requestTimeoutMillis;
    private final Connection connection;
    private final RequestDeadlines<InFlight> deadlines;
    /** Requests handed to the dispatcher whose handler is not done with them yet. */
    private int unsettled;
    /** Guards {@link #dispatchQueued} against re-entry from replies that complete at once. */
    private boolean dispatching;
    /** Requests read on this connection, for its access log line. */
    private long read;

    ConnectionRequests(EventExecutor loop, ConnectionContext context, RequestHandler dispatcher,
                       ConnectionListener listener, ConnectionLogs logs, AnswerWriter writer, long requestTimeoutMillis,
                       Connection connection) {
        this.loop = loop;
        this.context = context;
        this.dispatcher = dispatcher;
        this.listener = listener;
        this.logs = logs;
        this.writer = writer;
        this.requestTimeoutMillis = requestTimeoutMillis;
        this.connection = connection;
        this.deadlines = new RequestDeadlines<>(loop, this::timedOut);
    }

    /** A frame was read: it waits its turn, and goes to the dispatcher as soon as the caps allow. */
    void add(RequestFrame frame) {
        queued.addLast(frame);
        dispatchQueued();
    }

    boolean hasQueued() {
        return !queued.isEmpty();
    }

    int unsettled() {
        return unsettled;
    }

    long read() {
        return read;
    }

    /** The connection closed: the frames still queued are released. */
    void releaseQueued() {
        RequestFrame frame;
        while ((frame = queued.pollFirst()) != null) {
            frame.frame().release();
        }
    }

    /** Hands queued frames to the dispatcher, in order, while the caps allow. */
    void dispatchQueued() {
        if (dispatching) {
            return;
        }
        dispatching = true;
        try {
            while (connection.answering() && !queued.isEmpty() && connection.mayDispatch()) {
                RequestFrame next = queued.pollFirst();
                dispatch(new InFlight(writer.reserve(next.correlationId()), next, heldLater));
            }
        } finally {
            dispatching = false;
        }
    }

    private void dispatch(InFlight request) {
        unsettled++;
        read++;
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
        context.beginRequest(request);
        try {
            Future<Reply> reply = dispatcher.handle(context, request.request);
            return reply != null ? reply : loop.newSucceededFuture(
                    new Reply.Close("handling " + request.request.describe() + " gave no future"));
        } catch (RuntimeException e) {
            context.atDebug(LOGGER).setCause(e).log("Handler failure detail");
            return loop.newSucceededFuture(
                    new Reply.Close("handling " + request.request.describe() + " failed: " + e));
        } finally {
            context.endRequest();
            request.deadlineMillis = deadlineAfter(request.heldMillis);
        }
    }

    /**
     * A hold named for {@code request} after its handle call returned (a step of its handling that
     * resumed later): its deadline, already awaited, moves back to this hold from now.
     */
    private void held(InFlight request) {
        if (request.answered || request.awaitingIndex < 0) {
            return;
        }
        request.deadlineMillis = deadlineAfter(request.heldMillis);
        deadlines.postpone(request, request.deadlineMillis);
    }

    private long deadlineAfter(long heldMillis) {
        long base = requestTimeoutMillis + DEADLINE_MARGIN.toMillis();
        return heldMillis > Long.MAX_VALUE - base ? Long.MAX_VALUE : base + heldMillis;
    }

    /** The handler's future completed, on whatever thread completed it. */
    private void onHandled(InFlight request, Future<?> handled) {
        if (loop.inEventLoop()) {
            settle(request, handled);
            return;
        }
        logs.offLoop.warn(context, "Handling {} from client {} completed off the connection's event loop (a bug in its "
                + "handler); continuing on the loop", request.request.describe(), context.clientAddress());
        try {
            loop.execute(() -> settle(request, handled));
        } catch (RejectedExecutionException e) {
            // The loop has stopped: nothing can be written any more; only the buffers are left to free.
            request.request.frame().release();
            request.replyOf(handled, context).discard();
        }
    }

    /** The handler is done with the request: answer it (unless its deadline already did), then free its frame. */
    private void settle(InFlight request, Future<?> handled) {
        Reply reply = request.replyOf(handled, context);
        if (request.answered) {
            context.atDebug(LOGGER).log("Discarding the reply to {} from client {}: its deadline had passed",
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
            if (connection.answering()) {
                dispatchQueued();
                connection.settled();
            }
        }
    }

    /** The request's deadline passed with no reply: Kafka's REQUEST_TIMED_OUT answers it. */
    private void timedOut(InFlight request) {
        if (request.answered) {
            return;
        }
        Reply reply = Replies.error(request.request, Errors.REQUEST_TIMED_OUT);
        if (connection.answering()) {
            logs.timeouts.warn(context, "{} from client {} had no answer after {} ms; {}", request.request.describe(),
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
            connection.answered();
        } catch (RuntimeException e) {
            // Writing this answer or one released behind it failed: close, so no later answer waits
            // behind a slot that will never be written.
            connection.failed("answering " + frame.describe(), e);
        }
    }

    /** A connection listener threw: logged, and the request's answer goes on regardless. */
    private void listenerFailed(String call, RequestFrame request, RuntimeException e) {
        logs.failures.warn(context, "Connection listener failed in {} for {} from client {}: {}", call,
                request.describe(), context.clientAddress(), e.toString());
        context.atDebug(LOGGER).setCause(e).log("Connection listener failure detail");
    }
}
