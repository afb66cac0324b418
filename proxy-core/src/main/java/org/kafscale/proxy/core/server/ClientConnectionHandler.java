package org.kafscale.proxy.core.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;
import org.kafscale.proxy.core.security.ClientAuthenticated;
import org.slf4j.Logger;

/**
 * One client connection, as Netty sees it: this handler only turns Netty's events into calls on
 * the parts that do the work. {@link ConnectionRequests} takes each request from its read to its
 * settlement (queue past the in-flight cap, dispatch, deadline, answer); {@link AnswerWriter}
 * writes answers in request order under the client's correlation ids; {@link ReadGate} pauses and
 * resumes reading for the reasons this handler gives it; {@link ConnectionPhase} says whether the
 * connection is open, draining or closed; {@link ConnectionBackpressure} says why reading from the
 * client or its brokers should pause; {@link ConnectionTimeouts} closes a connection whose frame
 * does not arrive whole in time, or that has been idle too long. All of it runs on the connection's
 * event loop.
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

    private final ListenerParts parts;
    private final long openedAtNanos = System.nanoTime();
    private ConnectionPhase phase = ConnectionPhase.OPEN;
    private ConnectionContext context;
    private ChannelHandlerContext ctx;
    private KafkaFrameDecoder decoder;
    private ConnectionTimeouts timeouts;
    private ConnectionRequests requests;
    private AnswerWriter writer;
    private ConnectionBackpressure backpressure;
    private ReadGate readGate;
    /** A frame was handed on during the current read batch. */
    private boolean frameReadThisBatch;

    ClientConnectionHandler(ListenerParts parts) {
        this.parts = parts;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.context = parts.newContext(ctx.channel());
        ctx.channel().attr(LogFields.OF_CHANNEL).set(context);
        this.decoder = ctx.pipeline().get(KafkaFrameDecoder.class);
        ConnectionBudgets.Timeouts accepted = parts.budgets().timeouts();
        this.timeouts = new ConnectionTimeouts(ctx.executor(), accepted.frameRead(), accepted.idle(),
                accepted.unauthenticated(), this::expired);
        context.onAdmitted(timeouts::admitted);
        this.writer = new AnswerWriter(ctx, parts.logs(), context::describeClient, context, () -> phase.answers(),
                this::answersTaken, this::beginClose);
        this.requests = new ConnectionRequests(ctx.executor(), context, parts.handlers().forConnection(context),
                parts.listener(), parts.logs(), writer, parts.requestTimeoutMillis(),
                new ConnectionRequests.Connection() {
                    @Override
                    public boolean answering() {
                        return phase.answers();
                    }

                    @Override
                    public boolean mayDispatch() {
                        return backpressure.pauseReasons(false, draining()) == 0;
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
        this.backpressure = new ConnectionBackpressure(ctx.channel(), parts.maxInFlight(), writer, requests,
                context.backends(), parts.budgets(), this::partialFramesHaveRoom, this::answersTaken);
        this.readGate = new ReadGate(ctx.channel(), parts.listener(), timeouts::readingResumed, context::describeClient,
                context);
        context.backends().onWritabilityChanged(this::updateReading);
        context.onThrottle(this::throttled);
        parts.listener().opened();
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
        if (!context.admitsOnAuthentication()) {
            // A whole request: the client speaks Kafka. How long its answer takes is not its doing.
            timeouts.admitted();
        }
        context.clientIdSeen(request.clientId());
        // The request's policies, route and, when it is answered at once, its answer: the client's
        // loop time, measured only for a request-time quota.
        boolean metered = context.metersLoopTime();
        long start = metered ? System.nanoTime() : 0;
        requests.add(request);
        updateReading();
        if (metered) {
            context.loopTimeUsed(System.nanoTime() - start);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (phase.answers()) {
            int partial = partialFrameBytes();
            backpressure.partialFrame(partial);
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
        if (event instanceof DrainIf drainIf) {
            // Not active yet (no context): it takes the path in force when it becomes active.
            if (context != null && drainIf.affected().test(context)) {
                userEventTriggered(ctx, DRAIN);
            }
            return;
        }
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
        backpressure.release();
        context.backends().closeAll("client " + context.clientAddress() + " disconnected");
        context.closed();
        parts.listener().closed();
        ConnectionAccessLog.closed(ctx.channel(), context, openedAtNanos, requests.read());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Before the connection is active it has no id (nor log fields) yet.
        parts.logs().caught(context != null ? context : LogFields.NONE, ClientAddress.of(ctx.channel()), cause);
        ctx.close();
    }

    /** The listener's budget for partial frames has room again: report again, and read if this one may. */
    private void partialFramesHaveRoom() {
        if (phase.answers()) {
            backpressure.partialFrame(partialFrameBytes());
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
        backpressure.answersMoved();
        requests.dispatchQueued();
        updateReading();
    }

    /** A timeout ran out (see {@link ConnectionTimeouts}). */
    private void expired(ConnectionTimeout timeout, String reason) {
        if (phase.answers()) {
            parts.logs().timedOut(context, reason);
            parts.listener().timedOut(timeout);
            ctx.close();
            beginClose();
        }
    }

    private boolean draining() {
        return phase instanceof ConnectionPhase.Draining;
    }

    private void updateReading() {
        if (ctx != null && phase.answers()) {
            int throttled = context.throttleLeftNanos() > 0 ? ReadPause.THROTTLED.bit() : 0;
            readGate.update(backpressure.pauseReasons(true, draining()) | throttled);
        }
    }

    /** A quota throttles the client: reading pauses now and is looked at again when the throttle ends. */
    private void throttled() {
        updateReading();
        ctx.executor().schedule(this::updateReading, context.throttleLeftNanos(), TimeUnit.NANOSECONDS);
    }

    /** During a drain: once every request read has its answer written, close after the flush. */
    private void closeIfDrained() {
        if (draining() && writer.waiting() == 0 && !requests.hasQueued()) {
            context.atDebug(LOGGER).log("Drained connection from client {}", context.describeClient());
            phase = ConnectionPhase.CLOSED;
            // An empty write completes after every earlier write; it starts at the head of the
            // pipeline so the size prepender does not turn it into a zero-length frame.
            ctx.pipeline().firstContext().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void closeAfter(String what, RuntimeException e) {
        parts.logs().failed(context, what, e);
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
