package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;

/**
 * A {@link PolicyChain}'s stages in front of one handler: each request they read takes a {@link
 * RequestPass}; the rest go to the handler as they came. A key kafka-clients does not know passes
 * unread: the dispatcher refuses it whoever asks.
 */
final class PolicyHandler implements RequestHandler {
    private final Stages stages;
    private final RequestHandler next;

    PolicyHandler(Stages stages, RequestHandler next) {
        this.stages = stages;
        this.next = next;
    }

    @Override
    public Future<Reply> handle(ConnectionContext connection, RequestFrame request) {
        if (!ApiKeys.hasId(request.apiKey())) {
            return next.handle(connection, request);
        }
        ApiKeys api = ApiKeys.forId(request.apiKey());
        Stage[] of = stages.of(api);
        if (of.length == 0) {
            return next.handle(connection, request);
        }
        return new RequestPass(connection, request, api, of, stages, next).start();
    }
}
