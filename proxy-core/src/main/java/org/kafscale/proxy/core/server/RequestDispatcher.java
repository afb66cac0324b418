package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.local.ApiVersionsResponder;
import org.kafscale.proxy.core.local.FindCoordinatorResponder;
import org.kafscale.proxy.core.local.MetadataResponder;
import org.kafscale.proxy.core.topology.RoutingGate;

/**
 * The first decision for every request: ApiVersions is always answered here; with the routing
 * gate closed everything else gets the not-ready answer and the connection closes; Metadata and
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
        if (!gate.routable()) {
            return Replies.now(context.loop(), Replies.errorThenClose(request, Errors.REQUEST_TIMED_OUT,
                    "proxy is not ready to route (no fresh broker list)"));
        }
        if (request.isApi(ApiKeys.METADATA)) {
            return Replies.onLoop(context.loop(), metadata.answer(request).thenApply(Reply::send));
        }
        if (request.isApi(ApiKeys.FIND_COORDINATOR)) {
            return Replies.onLoop(context.loop(), findCoordinator.answer(request).thenApply(Reply::send));
        }
        return router.handle(context, request);
    }
}
