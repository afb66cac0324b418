package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import org.kafscale.proxy.core.backend.BackendChannelPool;

/**
 * What a handler of one client request may use: the connection's event loop (everything for a
 * connection runs there), and its broker channels.
 */
public final class ConnectionContext {
    private final EventLoop loop;
    private final BackendChannelPool backends;
    private final SocketAddress clientAddress;

    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress) {
        this.loop = loop;
        this.backends = backends;
        this.clientAddress = clientAddress;
    }

    /** The client connection's event loop. */
    public EventLoop loop() {
        return loop;
    }

    /** The client connection's broker channels. */
    public BackendChannelPool backends() {
        return backends;
    }

    /** The client's address, for log lines. */
    public SocketAddress clientAddress() {
        return clientAddress;
    }

    public Promise<Reply> newReply() {
        return loop.newPromise();
    }
}
