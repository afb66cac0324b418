package org.kafscale.proxy.routing.engine;

import io.netty.util.concurrent.Promise;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one step of a routed request (a listener, a scheduled retry): a step that throws completes
 * the reply with a close that says why, instead of leaving it (and every later answer on the
 * connection) pending. Netty would only log an exception thrown in a listener, and keep none from
 * a scheduled task.
 */
public final class Guard {
    private static final Logger LOGGER = LoggerFactory.getLogger(Guard.class);

    private Guard() {
    }

    public static void run(Promise<Reply> reply, ConnectionContext context, RequestFrame request, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            context.atDebug(LOGGER).setCause(e).log("Routing {} from client {} failed", request.describe(),
                    context.clientAddress());
            reply.trySuccess(new Reply.Close("routing " + request.describe() + " failed: " + e));
        }
    }
}
