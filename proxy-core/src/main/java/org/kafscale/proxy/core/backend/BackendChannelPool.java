package org.kafscale.proxy.core.backend;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * The broker channels of one client connection, all on the client's event loop: one ordered
 * channel per broker, plus idle channels for long-poll Fetches.
 *
 * <p>A channel that failed is dropped at once and the next request to that broker opens a fresh
 * one. Everything here runs on {@link #loop}, so plain maps suffice.
 */
public final class BackendChannelPool {
    private static final int MAX_POLL_CHANNELS = 4;

    private final EventLoop loop;
    private final BackendConnector connector;
    /** Most requests: one channel per broker, so a client's requests to a broker stay in order. */
    private final Map<BrokerEndpoint, Future<BackendChannel>> channels = new HashMap<>();
    /** Long-poll Fetches: idle channels per broker, so a held Fetch never delays other traffic. */
    private final Map<BrokerEndpoint, List<Future<BackendChannel>>> pollChannels = new HashMap<>();
    private boolean closed;
    private boolean autoRead = true;
    /** Whether every open channel can take more requests; the client is not read while one cannot. */
    private boolean writable = true;
    private Runnable writabilityListener = () -> { };
    /** The channel handing an answer on right now, if any. */
    private BackendChannel delivering;
    /** Channels not read because they delivered answers that wait for an earlier one. */
    private final List<BackendChannel> heldBack = new ArrayList<>();
    /** Which connecting poll channel took the last part while none of a broker's had connected. */
    private int nextConnecting;
    /** The client connection's log fields, which lines about its channels carry. */
    private LogFields fields = LogFields.NONE;
    /** Where its channels' answers' loop time is counted; null (not measured) until the connection asks. */
    private LongConsumer loopTime;

    public BackendChannelPool(EventLoop loop, BackendConnector connector) {
        this.loop = loop;
        this.connector = connector;
    }

    /** Lines about this pool's channels carry {@code fields}: the client connection's. Call on the loop. */
    public void logAs(LogFields fields) {
        this.fields = fields;
    }

    /**
     * From now on the loop time its channels' answers take, open ones included, is counted to
     * {@code sink}: the client connection's. Call on the loop.
     */
    public void meterLoopTimeTo(LongConsumer sink) {
        this.loopTime = sink;
        for (Future<BackendChannel> channel : all()) {
            if (channel.isSuccess()) {
                channel.getNow().meterLoopTimeTo(sink);
            }
        }
    }

    /** An open channel to {@code broker}: the pooled one while it is usable, else a new one. */
    public Future<BackendChannel> acquire(BrokerEndpoint broker) {
        if (closed) {
            return loop.newFailedFuture(new BackendException(BackendException.Cause.CANCELLED, false,
                    "client connection closed"));
        }
        Future<BackendChannel> existing = channels.get(broker);
        if (existing != null && (!existing.isDone() || (existing.isSuccess() && existing.getNow().isUsable()))) {
            return existing;
        }
        Future<BackendChannel> connecting = connect(broker);
        channels.put(broker, connecting);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                channels.remove(broker, connecting);
            }
        });
        return connecting;
    }

    private Future<BackendChannel> connect(BrokerEndpoint broker) {
        Future<BackendChannel> connecting = connector.connect(loop, broker);
        connecting.addListener(f -> {
            if (f.isSuccess()) {
                BackendChannel channel = connecting.getNow();
                channel.logAs(fields);
                channel.meterLoopTimeTo(loopTime);
                channel.channel().config().setAutoRead(autoRead);
                channel.onWritabilityChanged(this::updateWritable);
                channel.onDeliveries(c -> delivering = c);
                channel.channel().closeFuture().addListener(closedFuture -> updateWritable());
                if (closed) {
                    channel.close("client connection closed");
                }
            }
        });
        return connecting;
    }

    private List<Future<BackendChannel>> all() {
        List<Future<BackendChannel>> all = new ArrayList<>(channels.values());
        pollChannels.values().forEach(all::addAll);
        return all;
    }

    /**
     * A channel to {@code broker} with nothing in flight, for a Fetch the broker may hold for its
     * max wait. A broker processes one connection's requests in order, so a Fetch left waiting on
     * a channel (for example after the proxy answered the client from another broker) would delay
     * whatever follows it there. Up to {@link #MAX_POLL_CHANNELS} per broker, connecting ones
     * included; past that, the least busy connected one, or (while none has connected) the
     * connecting ones in turn. Counting connecting channels is what bounds the memory a client can
     * make us hold: each broker channel sets aside a buffer for a whole answer once its first bytes
     * arrive, and before that count a burst of pipelined Fetches opened one channel per Fetch.
     */
    public Future<BackendChannel> acquireIdle(BrokerEndpoint broker) {
        if (closed) {
            return acquire(broker);
        }
        List<Future<BackendChannel>> candidates = pollChannels.computeIfAbsent(broker, b -> new ArrayList<>());
        candidates.removeIf(f -> f.isDone() && (!f.isSuccess() || !f.getNow().isUsable()));
        Future<BackendChannel> leastBusy = null;
        for (Future<BackendChannel> f : candidates) {
            if (f.isSuccess() && f.getNow().pendingRequests() == 0) {
                return f;
            }
            if (f.isSuccess() && (leastBusy == null || f.getNow().pendingRequests() < leastBusy.getNow().pendingRequests())) {
                leastBusy = f;
            }
        }
        if (candidates.size() < MAX_POLL_CHANNELS) {
            Future<BackendChannel> connecting = connect(broker);
            candidates.add(connecting);
            return connecting;
        }
        if (leastBusy != null) {
            return leastBusy;
        }
        // All still connecting: spread the parts over them rather than open more.
        nextConnecting = (nextConnecting + 1) % candidates.size();
        return candidates.get(nextConnecting);
    }

    /**
     * Runs {@code listener} on the loop whenever {@link #isWritable} changes, so the client
     * connection can stop reading requests a broker cannot take yet (and resume).
     */
    public void onWritabilityChanged(Runnable listener) {
        this.writabilityListener = listener;
    }

    /** Whether every open channel of this pool can take more requests now. */
    public boolean isWritable() {
        return writable;
    }

    private void updateWritable() {
        boolean now = true;
        for (Future<BackendChannel> f : all()) {
            if (f.isSuccess() && f.getNow().isUsable() && !f.getNow().isWritable()) {
                now = false;
                break;
            }
        }
        if (now != writable) {
            writable = now;
            writabilityListener.run();
        }
    }

    /** Pauses or resumes reading answers from brokers (when the client cannot take more). */
    public void setAutoRead(boolean read) {
        autoRead = read;
        for (Future<BackendChannel> f : all()) {
            if (f.isSuccess()) {
                f.getNow().channel().config().setAutoRead(read && !heldBack.contains(f.getNow()));
            }
        }
    }

    /**
     * Stops reading the channel that is handing an answer on now (nothing if none is): its answer
     * waits for an earlier one from another channel, and the client's budget is spent. The
     * channel with that earlier answer is still read, so the wait ends; then
     * {@link #releaseHeldBack} resumes the rest.
     */
    public void holdBackDelivering() {
        if (delivering != null && !heldBack.contains(delivering)) {
            heldBack.add(delivering);
            delivering.channel().config().setAutoRead(false);
        }
    }

    /** Reads again every channel {@link #holdBackDelivering} stopped (as far as {@link #setAutoRead} allows). */
    public void releaseHeldBack() {
        if (heldBack.isEmpty()) {
            return;
        }
        for (BackendChannel channel : heldBack) {
            channel.channel().config().setAutoRead(autoRead);
        }
        heldBack.clear();
    }

    /** Closes every channel; pending requests fail. */
    public void closeAll(String reason) {
        closed = true;
        List<Future<BackendChannel>> all = all();
        channels.clear();
        pollChannels.clear();
        for (Future<BackendChannel> f : all) {
            if (f.isSuccess()) {
                f.getNow().close(reason);
            }
        }
    }
}
