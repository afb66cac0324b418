package org.kafscale.proxy.core.backend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.concurrent.EarliestDeadline;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to one broker, carrying pipelined requests.
 *
 * <p>Correlation ids on this connection are the channel's own: each request's id is overwritten in
 * place before it is written, and the broker's answer is matched back through {@link #pending}.
 * The caller puts the client's id back. All methods run on the channel's event loop.
 *
 * <p>Any failure (close, timeout, an answer that matches no request) closes the channel and fails
 * every pending request; a closed channel is never reused.
 */
public final class BackendChannel {
    private static final Logger LOGGER = LoggerFactory.getLogger(BackendChannel.class);
    /**
     * A failing broker closes its channels of every client connection at once, so one limiter
     * serves them all (channels come from many pools; this class is the one place they share).
     */
    private static final RateLimitedLog CLOSES = RateLimitedLog.every10Seconds(LOGGER);
    /** Fraction of a SASL session's lifetime after which the channel takes no new requests. */
    static final double RETIRE_AT = 0.85;

    private final Channel channel;
    private final BrokerEndpoint broker;
    private final IntObjectMap<Pending> pending = new IntObjectHashMap<>();
    /** One scheduled check per channel, at the earliest deadline of what is pending. */
    private final EarliestDeadline deadlines;
    private int nextCorrelationId;
    private String closeReason;
    /** Past its SASL session's retirement point: finishes what it carries, takes nothing new from the pool. */
    private boolean retired;
    private Runnable writabilityListener = () -> { };
    /** Told which channel hands an answer on (this one), and null once it has. */
    private Consumer<BackendChannel> deliveries = channel -> { };
    /** The client connection's log fields, once its pool has adopted this channel. */
    private LogFields fields = LogFields.NONE;
    /** Where the loop time of this channel's answers is counted; null (not measured) until a pool says. */
    private LongConsumer loopTime;

    BackendChannel(Channel channel, BrokerEndpoint broker) {
        this.channel = channel;
        this.broker = broker;
        this.deadlines = new EarliestDeadline(channel.eventLoop(), this::checkDeadlines);
    }

    /** Lines about this channel carry {@code fields}: the client connection it serves. */
    void logAs(LogFields fields) {
        this.fields = fields;
    }

    /** The event-loop time handling this channel's answers takes is the client connection's: counted to {@code sink}. */
    void meterLoopTimeTo(LongConsumer sink) {
        this.loopTime = sink;
    }

    /** Where the loop time of this channel's answers is counted; null while nothing asks for it. */
    LongConsumer loopTime() {
        return loopTime;
    }

    public BrokerEndpoint broker() {
        return broker;
    }

    /** Whether the pool may hand this channel out for more requests. */
    public boolean isUsable() {
        return !retired && isOpen();
    }

    private boolean isOpen() {
        return closeReason == null && channel.isActive();
    }

    /**
     * The broker ends this channel's SASL session {@code lifetimeMillis} from now (KIP-368), closing
     * the connection of a client that did not re-authenticate. The proxy does not re-authenticate:
     * at {@link #RETIRE_AT} of the lifetime the channel stops being handed out, and it closes once the
     * requests it carries are answered, so new requests go to a freshly authenticated channel.
     */
    void retireAfter(long lifetimeMillis) {
        ScheduledFuture<?> retirement = channel.eventLoop().schedule(this::retire, (long) (lifetimeMillis * RETIRE_AT),
                TimeUnit.MILLISECONDS);
        channel.closeFuture().addListener(closed -> retirement.cancel(false));
    }

    private void retire() {
        retired = true;
        closeIfRetiredAndIdle();
    }

    private void closeIfRetiredAndIdle() {
        if (retired && pending.isEmpty() && closeReason == null) {
            close("SASL session lifetime nearly over");
        }
    }

    /** Requests written or waiting for an answer on this channel. */
    public int pendingRequests() {
        return pending.size();
    }

    /**
     * Tells {@code watcher} this channel while each answer is handed on (whatever completes
     * synchronously from it runs meanwhile), and null once it has: its pool learns which channel
     * delivered an answer.
     */
    public void onDeliveries(Consumer<BackendChannel> watcher) {
        this.deliveries = watcher;
    }

    public boolean isWritable() {
        return channel.isWritable();
    }

    public Channel channel() {
        return channel;
    }

    /** Runs {@code listener} (on the channel's event loop) each time {@link #isWritable} changes. */
    void onWritabilityChanged(Runnable listener) {
        this.writabilityListener = listener;
    }

    /** Called by the channel's handler when the channel's outbound buffer crosses a water mark. */
    void onWritabilityChanged() {
        writabilityListener.run();
    }

    /**
     * Writes a request frame (header and body, no size prefix) and completes with the broker's
     * answer frame, whose first four bytes are this channel's correlation id.
     *
     * @param frame the request; ownership passes to this method (released once written or failed)
     * @param timeoutMillis how long the broker has to answer before the channel is closed
     */
    public Future<ByteBuf> request(ByteBuf frame, long timeoutMillis) {
        Promise<ByteBuf> promise = channel.eventLoop().newPromise();
        if (!isOpen()) {
            frame.release();
            promise.setFailure(new BackendException(BackendException.Cause.CONNECTION_CLOSED, false,
                    broker + " connection is closed: " + closeReason()));
            return promise;
        }
        int correlationId = nextCorrelationId++;
        frame.setInt(frame.readerIndex() + RequestFrame.CORRELATION_ID_OFFSET, correlationId);
        Pending entry = new Pending(promise, deadlines.after(timeoutMillis), timeoutMillis);
        pending.put(correlationId, entry);
        deadlines.checkBy(entry.deadlineNanos);
        channel.writeAndFlush(frame).addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                entry.written = true;
            } else {
                fail("write failed: " + f.cause(), BackendException.Cause.CONNECTION_CLOSED);
            }
        });
        return promise;
    }

    /**
     * Writes a request that has no answer (a Produce with acks=0). Completes when the bytes are
     * written; nothing is registered, so the broker's silence is expected.
     */
    public Future<Void> send(ByteBuf frame) {
        if (!isOpen()) {
            frame.release();
            return channel.eventLoop().newFailedFuture(new BackendException(
                    BackendException.Cause.CONNECTION_CLOSED, false, broker + " connection is closed: " + closeReason()));
        }
        frame.setInt(frame.readerIndex() + RequestFrame.CORRELATION_ID_OFFSET, nextCorrelationId++);
        return channel.writeAndFlush(frame);
    }

    /** Called by the channel's handler with one answer frame; takes ownership of it. */
    void onResponse(ByteBuf response) {
        if (response.readableBytes() < 4) {
            response.release();
            fail("answer of " + response.readableBytes() + " bytes has no correlation id",
                    BackendException.Cause.BAD_RESPONSE);
            return;
        }
        int correlationId = response.getInt(response.readerIndex());
        Pending entry = pending.remove(correlationId);
        if (entry == null) {
            response.release();
            fail("answer with correlation id " + correlationId + " matches no request",
                    BackendException.Cause.BAD_RESPONSE);
            return;
        }
        deliveries.accept(this);
        try {
            if (!entry.promise.trySuccess(response)) {
                response.release();
            }
        } finally {
            deliveries.accept(null);
        }
        closeIfRetiredAndIdle();
    }

    /** Called by the channel's handler when the connection ends. */
    void onClosed() {
        fail("connection closed by " + broker, BackendException.Cause.CONNECTION_CLOSED);
    }

    /** A request past its deadline fails the channel, as its own timer did; else look again at the next deadline. */
    private void checkDeadlines() {
        long now = deadlines.now();
        Pending next = null;
        for (Pending entry : pending.values()) {
            if (EarliestDeadline.isPast(entry.deadlineNanos, now)) {
                fail("no answer within " + entry.timeoutMillis + " ms", BackendException.Cause.TIMED_OUT);
                return;
            }
            if (next == null || entry.deadlineNanos - next.deadlineNanos < 0) {
                next = entry;
            }
        }
        if (next != null) {
            deadlines.checkBy(next.deadlineNanos);
        }
    }

    /** Closes the channel with a reason; pending requests fail with the given cause. */
    void fail(String reason, BackendException.Cause cause) {
        if (closeReason == null) {
            closeReason = reason;
            boolean expected = cause == BackendException.Cause.CANCELLED
                    || (cause == BackendException.Cause.CONNECTION_CLOSED && pending.isEmpty());
            if (!expected) {
                CLOSES.warn(fields, "Closing channel to {}: {} ({} requests pending)", broker, reason, pending.size());
            }
        }
        List<Pending> failed = new ArrayList<>(pending.values());
        pending.clear();
        deadlines.cancel();
        for (Pending entry : failed) {
            entry.promise.tryFailure(new BackendException(cause, entry.written, broker + ": " + reason));
        }
        channel.close();
    }

    /** The broker answered with bytes that do not parse: the channel is closed and never reused. */
    public void closeUnparseable(String reason) {
        fail(reason, BackendException.Cause.BAD_RESPONSE);
    }

    /** Closes the channel on the proxy's own initiative; pending requests fail as cancelled. */
    public void close(String reason) {
        fail(reason, BackendException.Cause.CANCELLED);
    }

    private String closeReason() {
        return closeReason != null ? closeReason : "channel inactive";
    }

    private static final class Pending {
        final Promise<ByteBuf> promise;
        /** When (on the event loop's clock) the broker must have answered by. */
        final long deadlineNanos;
        final long timeoutMillis;
        boolean written;

        Pending(Promise<ByteBuf> promise, long deadlineNanos, long timeoutMillis) {
            this.promise = promise;
            this.deadlineNanos = deadlineNanos;
            this.timeoutMillis = timeoutMillis;
        }
    }
}
