package org.kafscale.proxy.core.backend;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * The broker channels of one client connection, one per broker, all on the client's event loop.
 *
 * <p>A channel that failed is dropped at once and the next request to that broker opens a fresh
 * one. Everything here runs on {@link #loop}, so plain maps suffice.
 */
public final class BackendChannelPool {
    private final EventLoop loop;
    private final BackendConnector connector;
    private final Map<BrokerEndpoint, Future<BackendChannel>> channels = new HashMap<>();
    private boolean closed;
    private boolean autoRead = true;

    public BackendChannelPool(EventLoop loop, BackendConnector connector) {
        this.loop = loop;
        this.connector = connector;
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
        Future<BackendChannel> connecting = connector.connect(loop, broker);
        channels.put(broker, connecting);
        connecting.addListener(f -> {
            if (f.isSuccess()) {
                BackendChannel channel = connecting.getNow();
                channel.channel().config().setAutoRead(autoRead);
                if (closed) {
                    channel.close("client connection closed");
                }
            } else {
                channels.remove(broker, connecting);
            }
        });
        return connecting;
    }

    /** Whether every open broker channel can take more writes; the client pauses reading if not. */
    public boolean allWritable() {
        for (Future<BackendChannel> f : channels.values()) {
            if (f.isSuccess() && !f.getNow().isWritable()) {
                return false;
            }
        }
        return true;
    }

    /** Pauses or resumes reading answers from brokers (when the client cannot take more). */
    public void setAutoRead(boolean read) {
        autoRead = read;
        for (Future<BackendChannel> f : channels.values()) {
            if (f.isSuccess()) {
                f.getNow().channel().config().setAutoRead(read);
            }
        }
    }

    public int openChannels() {
        int open = 0;
        for (Future<BackendChannel> f : channels.values()) {
            if (f.isSuccess() && f.getNow().isUsable()) {
                open++;
            }
        }
        return open;
    }

    /** Closes every channel; pending requests fail. */
    public void closeAll(String reason) {
        closed = true;
        List<Future<BackendChannel>> all = new ArrayList<>(channels.values());
        channels.clear();
        for (Future<BackendChannel> f : all) {
            if (f.isSuccess()) {
                f.getNow().close(reason);
            }
        }
    }
}
