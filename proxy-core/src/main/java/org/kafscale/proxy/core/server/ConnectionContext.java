package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.kafscale.proxy.core.backend.BackendChannelPool;

/**
 * What a handler of one client request may use: the connection's event loop (everything for a
 * connection runs there), its broker channels, and state a router keeps per connection.
 */
public final class ConnectionContext {
    private final EventLoop loop;
    private final BackendChannelPool backends;
    private final SocketAddress clientAddress;
    private final Map<Class<?>, Object> state = new HashMap<>();

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

    /** This connection's instance of {@code type}, created on first use. Event-loop confined, like the connection. */
    public <T> T state(Class<T> type, Supplier<T> create) {
        return type.cast(state.computeIfAbsent(type, t -> create.get()));
    }
}
