package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import org.kafscale.proxy.core.backend.BackendChannelPool;

/**
 * What a handler of one client request may use: the connection's event loop (everything for a
 * connection runs there) and its broker channels.
 *
 * @param loop the client connection's event loop
 * @param backends the client connection's broker channels
 * @param clientAddress the client's address, for log lines
 */
public record ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress) {

    public Promise<Reply> newReply() {
        return loop.newPromise();
    }
}
