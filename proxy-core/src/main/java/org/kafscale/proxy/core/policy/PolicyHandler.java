package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;

/**
 * A {@link PolicyChain} in front of one handler: each request the chain reads takes a {@link
 * RequestPass}; the rest go to the handler as they came. A key kafka-clients does not know passes
 * unread: the dispatcher refuses it whoever asks.
 */
final class PolicyHandler implements RequestHandler {
    private final PolicyChain chain;
    private final RequestHandler next;

    PolicyHandler(PolicyChain chain, RequestHandler next) {
        this.chain = chain;
        this.next = next;
    }

    @Override
    public Future<Reply> handle(ConnectionContext connection, RequestFrame request) {
        if (!ApiKeys.hasId(request.apiKey())) {
            return next.handle(connection, request);
        }
        ApiKeys api = ApiKeys.forId(request.apiKey());
        Stage[] stages = chain.stages(api);
        if (stages.length == 0) {
            return next.handle(connection, request);
        }
        return new RequestPass(connection, request, api, stages, next).start();
    }
}
