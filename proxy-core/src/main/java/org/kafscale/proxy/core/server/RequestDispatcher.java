package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.local.ApiVersionsResponder;
import org.kafscale.proxy.core.local.FindCoordinatorResponder;
import org.kafscale.proxy.core.local.MetadataResponder;
import org.kafscale.proxy.core.topology.RoutingGate;

/**
 * The first decision for every request: ApiVersions is always answered here; with the routing
 * gate closed (after one re-check of the source) everything else gets the not-ready answer
 * ({@link NotReadyReplies}) and the connection closes; Metadata and
 * FindCoordinator are answered from the topology; the rest goes to the router.
 */
public final class RequestDispatcher implements RequestHandler {
    private final ApiVersionsResponder apiVersions;
    private final MetadataResponder metadata;
    private final FindCoordinatorResponder findCoordinator;
    private final RoutingGate gate;
    private final RequestHandler router;

    public RequestDispatcher(ApiVersionsResponder apiVersions, MetadataResponder metadata,
                             FindCoordinatorResponder findCoordinator, RoutingGate gate, RequestHandler router) {
        this.apiVersions = apiVersions;
        this.metadata = metadata;
        this.findCoordinator = findCoordinator;
        this.gate = gate;
        this.router = router;
    }

    @Override
    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        if (request.isApi(ApiKeys.API_VERSIONS)) {
            return Replies.now(context.loop(), Reply.send(apiVersions.answer(request)));
        }
        if (gate.routable()) {
            return route(context, request);
        }
        // Past the gate's freshness: one more look at the source, then route or refuse.
        Promise<Reply> reply = context.newReply();
        gate.recheck().whenComplete((ok, error) -> context.loop().execute(() -> {
            Future<Reply> next = Boolean.TRUE.equals(ok) && error == null
                    ? route(context, request)
                    : Replies.now(context.loop(), NotReadyReplies.forRequest(request));
            next.addListener(done -> reply.setSuccess(done.isSuccess() ? (Reply) done.getNow()
                    : new Reply.Close("handling " + request.describe() + " failed: " + done.cause())));
        }));
        return reply;
    }

    private Future<Reply> route(ConnectionContext context, RequestFrame request) {
        if (request.isApi(ApiKeys.METADATA)) {
            return Replies.onLoop(context.loop(), metadata.answer(request).thenApply(Reply::send));
        }
        if (request.isApi(ApiKeys.FIND_COORDINATOR)) {
            return Replies.onLoop(context.loop(), findCoordinator.answer(request).thenApply(Reply::send));
        }
        return router.handle(context, request);
    }
}
