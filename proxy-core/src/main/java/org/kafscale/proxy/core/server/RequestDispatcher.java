package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.local.ApiVersionsResponder;
import org.kafscale.proxy.core.local.DescribeClusterResponder;
import org.kafscale.proxy.core.local.DescribeTopicPartitionsResponder;
import org.kafscale.proxy.core.local.FindCoordinatorResponder;
import org.kafscale.proxy.core.local.MetadataResponder;
import org.kafscale.proxy.core.topology.RoutingGate;

/**
 * The first decision for every request, in this order:
 * <ol>
 *   <li>A key the proxy does not advertise on this connection ({@link ApiCatalog#servedOn}: the
 *       per-broker disk APIs only on a broker's own port) is refused, never forwarded: a
 *       broker's answer to it could name real brokers or disks, or act on a connection the proxy
 *       shares. The connection closes with a log line naming key, version and client, as a Kafka
 *       broker closes on a key it does not serve. SaslHandshake is answered first,
 *       UNSUPPORTED_SASL_MECHANISM with no mechanisms (this listener has no SASL), so a client
 *       configured for SASL says why instead of seeing a bare disconnect. On a SASL listener the
 *       SASL gate in front of the dispatcher ({@code core.security.sasl}) answers SASL instead, and
 *       nothing reaches the dispatcher before the client has authenticated.</li>
 *   <li>ApiVersions is always answered here; before any broker has reported its own versions it
 *       is held (at most {@link #FIRST_PROBE_WAIT}), since the proxy cannot yet say what every
 *       broker serves, and past that the connection closes (the client reconnects) rather than
 *       advertise versions a broker may lack.</li>
 *   <li>With the routing gate closed (after one re-check of the source) everything else gets the
 *       not-ready answer ({@link NotReadyReplies}) and the connection closes.</li>
 *   <li>Metadata, FindCoordinator, DescribeCluster and DescribeTopicPartitions are answered from
 *       the topology; the rest goes to the router.</li>
 * </ol>
 */
public final class RequestDispatcher implements RequestHandler {
    /** How long ApiVersions waits for the first broker report; well within a client's request timeout. */
    static final Duration FIRST_PROBE_WAIT = Duration.ofSeconds(3);

    private final ApiCatalog apis;
    private final ApiVersionsResponder apiVersions;
    private final MetadataResponder metadata;
    private final FindCoordinatorResponder findCoordinator;
    private final DescribeClusterResponder describeCluster;
    private final DescribeTopicPartitionsResponder describeTopicPartitions;
    private final RoutingGate gate;
    private final RequestHandler router;

    /** @param apis where each key is served: a key it does not serve on the connection is refused */
    public RequestDispatcher(ApiCatalog apis, ApiVersionsResponder apiVersions, MetadataResponder metadata,
                             FindCoordinatorResponder findCoordinator, DescribeClusterResponder describeCluster,
                             DescribeTopicPartitionsResponder describeTopicPartitions, RoutingGate gate,
                             RequestHandler router) {
        this.apis = apis;
        this.apiVersions = apiVersions;
        this.metadata = metadata;
        this.findCoordinator = findCoordinator;
        this.describeCluster = describeCluster;
        this.describeTopicPartitions = describeTopicPartitions;
        this.gate = gate;
        this.router = router;
    }

    @Override
    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        boolean addressesBroker = context.addressedBroker().isPresent();
        if (request.knownApi().filter(api -> apis.servedOn(api, addressesBroker)).isEmpty()) {
            return Replies.now(context.loop(), refusal(request));
        }
        if (request.isApi(ApiKeys.API_VERSIONS)) {
            return apiVersions(context, request, addressesBroker);
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

    /** What an unadvertised key gets: a close with the reason, after the SASL answer for SaslHandshake. */
    static Reply refusal(RequestFrame request) {
        String reason = request.describe() + " from client id '" + request.clientId()
                + "' is not served by the proxy (not advertised in its ApiVersions)";
        if (request.isApi(ApiKeys.SASL_HANDSHAKE)) {
            try {
                return new Reply.SendAndClose(ResponseFrames.encode(request, new SaslHandshakeResponseData()
                        .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()).setMechanisms(List.of())),
                        reason + "; answered UNSUPPORTED_SASL_MECHANISM: this listener has no SASL");
            } catch (RuntimeException e) {
                return new Reply.Close(reason + "; " + e);
            }
        }
        return new Reply.Close(reason);
    }

    private Future<Reply> apiVersions(ConnectionContext context, RequestFrame request, boolean addressesBroker) {
        if (apiVersions.brokersKnown()) {
            return Replies.now(context.loop(), Reply.send(apiVersions.answer(request, addressesBroker)));
        }
        Promise<Reply> reply = context.newReply();
        ScheduledFuture<?> giveUp = context.loop().schedule(() -> {
            reply.trySuccess(new Reply.Close("no broker has answered the proxy's ApiVersions probe within "
                    + FIRST_PROBE_WAIT.toMillis() + " ms; " + request.describe() + " is not answered so that no "
                    + "version a broker lacks is advertised (the client reconnects)"));
        }, FIRST_PROBE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        apiVersions.brokersReported().whenComplete((ignored, error) -> context.loop().execute(() -> {
            giveUp.cancel(false);
            if (reply.isDone()) {
                return;
            }
            try {
                reply.setSuccess(Reply.send(apiVersions.answer(request, addressesBroker)));
            } catch (RuntimeException e) {
                reply.setSuccess(new Reply.Close("answering " + request.describe() + " failed: " + e));
            }
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
        if (request.isApi(ApiKeys.DESCRIBE_CLUSTER)) {
            return Replies.now(context.loop(), Reply.send(describeCluster.answer(request)));
        }
        if (request.isApi(ApiKeys.DESCRIBE_TOPIC_PARTITIONS)) {
            return Replies.onLoop(context.loop(), describeTopicPartitions.answer(request).thenApply(Reply::send));
        }
        return router.handle(context, request);
    }
}
