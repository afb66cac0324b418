package org.kafscale.proxy.routing;

import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.apis.ProxiedApis;
import org.kafscale.proxy.core.apis.RouteKind;
import org.kafscale.proxy.core.backend.BackendForwarder;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.routing.coordinator.CoordinatorFanOut;
import org.kafscale.proxy.routing.coordinator.CoordinatorRouter;
import org.kafscale.proxy.routing.coordinator.ListGroupsFanOut;
import org.kafscale.proxy.routing.coordinator.RoutingKeys;
import org.kafscale.proxy.routing.engine.LeaderHints;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;
import org.kafscale.proxy.routing.engine.StaleRoutes;
import org.kafscale.proxy.routing.fetch.FetchRoute;
import org.kafscale.proxy.routing.partition.PartitionApis;
import org.kafscale.proxy.routing.produce.ProduceRoute;
import org.slf4j.LoggerFactory;

/**
 * The routes every connection shares (they hold no per-connection state), and the factory of each
 * connection's own router, which keeps what that connection accumulates.
 */
public final class Routing {
    private final RoutingServices services;
    private final ConnectAttempts anyBrokerConnect;
    private final ProduceRoute produce;
    private final PartitionApis partitionApis;
    private final CoordinatorRouter coordinators;
    private final CoordinatorFanOut coordinatorFanOut;
    private final ListGroupsFanOut listGroups;
    private final TopologyChangingApis topologyChanges;

    /**
     * @param anyBrokerConnect connection attempts for requests any broker can answer
     * @param produceRewriter consulted before each Produce is split (the LFS rewrite)
     */
    public Routing(Topology topology, AdvertisedListener advertised, long requestTimeoutMillis,
                   ConnectAttempts anyBrokerConnect, RoutingObserver observer, ProduceRewriter produceRewriter) {
        this.services = new RoutingServices(topology, new BackendForwarder(requestTimeoutMillis), observer,
                new LeaderHints(advertised), RateLimitedLog.every10Seconds(LoggerFactory.getLogger(PartitionExchange.class)),
                new StaleRoutes(topology));
        this.anyBrokerConnect = anyBrokerConnect;
        this.produce = new ProduceRoute(services, produceRewriter);
        this.partitionApis = new PartitionApis(services);
        this.coordinators = new CoordinatorRouter(services);
        this.coordinatorFanOut = new CoordinatorFanOut(topology, coordinators);
        this.listGroups = new ListGroupsFanOut(services);
        this.topologyChanges = new TopologyChangingApis(topology);
    }

    /** The router of one client connection, made as it opens. */
    public RequestHandler newRouter(ConnectionContext connection) {
        return new ConnectionRouter();
    }


    /**
     * Routes the forwarded requests of one client connection to the brokers that can serve them.
     *
     * <ul>
     *   <li>Produce, Fetch and the other partition APIs (ListOffsets, OffsetForLeaderEpoch,
     *       DeleteRecords, DescribeProducers) are split by partition owner through one engine
     *       ({@link PartitionExchange}), fanned out and merged.</li>
     *   <li>Group and transaction APIs go to the coordinator of their key; those that name several
     *       keys are split per coordinator and merged in request order.</li>
     *   <li>ListGroups goes to every broker and the lists are merged.</li>
     *   <li>Everything else, including keys kafka-clients does not know, goes to a live broker.</li>
     * </ul>
     *
     * <p>What the connection accumulates (the Fetch parts still long-polling when the client was
     * answered) is a field here, confined to the connection's event loop.
     */
    private final class ConnectionRouter implements RequestHandler {
        private final FetchRoute fetch = new FetchRoute(services);
        private int anyBrokerCursor;

        @Override
        public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
            RouteKind route = request.knownApi().flatMap(ProxiedApis::routeOf).orElse(RouteKind.ANY_BROKER);
            if (request.isApi(ApiKeys.LIST_GROUPS)) {
                return listGroups.handle(context, request);
            }
            if (route == RouteKind.ANY_BROKER) {
                return toAnyBroker(context, request);
            }
            ApiMessage body;
            try {
                body = request.decodeBody(ApiMessage.class);
            } catch (RuntimeException e) {
                return Replies.now(context.loop(), new Reply.Close(request.describe() + " body does not parse: " + e));
            }
            long holdMillis = brokerHoldMillis(body);
            context.expectHeldFor(holdMillis);
            switch (route) {
                case PARTITIONS:
                    if (body instanceof ProduceRequestData produceData) {
                        return produce.handle(context, request, produceData);
                    }
                    if (body instanceof FetchRequestData fetchData) {
                        return fetch.handle(context, request, fetchData);
                    }
                    return partitionApis.handle(context, request, body).orElseGet(() -> toAnyBroker(context, request));
                case GROUP_COORDINATOR:
                    return coordinatorFanOut.handle(context, request, body)
                            .orElseGet(() -> coordinators.route(context, request, request.frame().retainedDuplicate(),
                                    CoordinatorKind.GROUP, RoutingKeys.groups(body), holdMillis));
                case TRANSACTION_COORDINATOR:
                    Optional<Future<Reply>> batched = coordinatorFanOut.handle(context, request, body);
                    if (batched.isPresent()) {
                        return batched.get();
                    }
                    Optional<String> txnId = RoutingKeys.transactionalId(body);
                    return txnId.isEmpty() ? toAnyBroker(context, request)
                            : coordinators.route(context, request, CoordinatorKind.TRANSACTION, Set.of(txnId.get()));
                default:
                    throw new IllegalStateException(request.describe() + " should have been answered locally");
            }
        }

        /**
         * How long a broker may legitimately hold this request beyond the request timeout, so the
         * connection's deadline for it waits that much longer: a Fetch its max wait, a JoinGroup
         * until the rebalance completes (its rebalance timeout; v0 has only the session timeout).
         */
        private long brokerHoldMillis(ApiMessage body) {
            if (body instanceof FetchRequestData fetchData) {
                return Math.max(0, fetchData.maxWaitMs());
            }
            if (body instanceof JoinGroupRequestData join) {
                return Math.max(0, Math.max(join.rebalanceTimeoutMs(), join.sessionTimeoutMs()));
            }
            return 0;
        }

        private Future<Reply> toAnyBroker(ConnectionContext context, RequestFrame request) {
            List<BrokerEndpoint> brokers = new ArrayList<>(services.topology().snapshot().brokers().values());
            if (brokers.isEmpty()) {
                return Replies.now(context.loop(), Replies.error(request, Errors.REQUEST_TIMED_OUT));
            }
            // Round robin: each request starts at the next broker, and a retry moves on to the one after.
            Collections.rotate(brokers, -Math.floorMod(anyBrokerCursor++, brokers.size()));
            return topologyChanges.afterChangeVisible(context, request, services.forwarder().forwardToFirstReachable(
                    context, request, brokers, anyBrokerConnect, request.frame().retainedDuplicate(), 0,
                    Errors.REQUEST_TIMED_OUT));
        }
    }
}
