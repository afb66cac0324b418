package org.kafscale.proxy.routing.apis;

import io.netty.util.concurrent.Future;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;

/** Where a request goes as the client's bytes, its body never decoded. */
@FunctionalInterface
public interface OpaqueRoute {
    Future<Reply> handle(Routes routes, ConnectionContext context, RequestFrame request);
}
