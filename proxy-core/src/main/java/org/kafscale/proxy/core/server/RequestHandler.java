package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.Future;
import org.kafscale.proxy.core.codec.RequestFrame;

/**
 * Handles one client request and completes with what to send back.
 *
 * <p>Called on the connection's event loop; must not block it. The request frame stays owned by
 * the caller, who releases it once the returned future completes: a handler that writes the
 * frame to a broker sends a retained duplicate.
 */
@FunctionalInterface
public interface RequestHandler {
    Future<Reply> handle(ConnectionContext context, RequestFrame request);
}
