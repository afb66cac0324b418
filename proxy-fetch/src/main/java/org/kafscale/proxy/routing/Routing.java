package org.kafscale.proxy.routing;

import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
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
import org.kafscale.proxy.routing.admin.AddressedBrokerRoute;
import org.kafscale.proxy.routing.admin.AdminApis;
import org.kafscale.proxy.routing.coordinator.CoordinatorFanOut;
import org.kafscale.proxy.routing.coordinator.CoordinatorRouter;
import org.kafscale.proxy.routing.coordinator.RoutingKeys;
import org.kafscale.proxy.routing.engine.LeaderHints;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;
import org.kafscale.proxy.routing.engine.StaleRoutes;
import org.kafscale.proxy.routing.fetch.FetchRoute;
import org.kafscale.proxy.routing.fetch.ReadAheadBudget;
import org.kafscale.proxy.routing.fetch.ReadAheadSettings;
import org.kafscale.proxy.routing.partition.PartitionApis;
import org.kafscale.proxy.routing.produce.ProduceRoute;
import org.kafscale.proxy.routing.share.ShareAnswers;
import org.kafscale.proxy.routing.share.ShareRoute;
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
    private final AdminApis admin;
    private final ShareAnswers shareAnswers;
    private final TopologyChangingApis topologyChanges;
    private final AddressedBrokerRoute addressedBroker;
    private final ReadAheadSettings readAhead;
    private final ReadAheadBudget readAheadBudget;

    /**
     * @param anyBrokerConnect connection attempts for requests any broker can answer
     * @param produceRewriter consulted before each Produce is split (the LFS rewrite)
     * @param readAhead whether split Fetches are read ahead, and what that may hold process-wide
     */
    public Routing(Topology topology, AdvertisedListener advertised, long requestTimeoutMillis,
                   ConnectAttempts anyBrokerConnect, RoutingObserver observer, ProduceRewriter produceRewriter,
                   ReadAheadSettings readAhead) {
        this.readAhead = readAhead;
        this.readAheadBudget = new ReadAheadBudget(readAhead.maxHeldBytes(), observer);
        this.services = new RoutingServices(topology, new BackendForwarder(requestTimeoutMillis), observer,
                new LeaderHints(advertised), RateLimitedLog.every10Seconds(LoggerFactory.getLogger(PartitionExchange.class)),
                new StaleRoutes(topology));
        this.anyBrokerConnect = anyBrokerConnect;
        this.produce = new ProduceRoute(services, produceRewriter);
        this.partitionApis = new PartitionApis(services);
        this.coordinators = new CoordinatorRouter(services);
        this.coordinatorFanOut = new CoordinatorFanOut(topology, coordinators);
        this.admin = new AdminApis(services, advertised, anyBrokerConnect);
        this.shareAnswers = new ShareAnswers(topology, services.hints(), advertised, services.staleRoutes());
        this.topologyChanges = new TopologyChangingApis(topology);
        this.addressedBroker = new AddressedBrokerRoute(services, anyBrokerConnect);
    }

    /** The router of one client connection, made as it opens. */
    public RequestHandler newRouter(ConnectionContext connection) {
        return new ConnectionRouter(connection);
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
     *   <li>Admin APIs whose resources or answers are a broker's own (broker configs, ListGroups,
     *       ListTransactions, DescribeQuorum) go through {@link AdminApis}.</li>
     *   <li>DescribeLogDirs and AlterReplicaLogDirs (served only on a broker's own port), and
     *       DescribeProducers on such a port, go to the broker the port stands for.</li>
     *   <li>Every other key {@link ProxiedApis} lists goes to a live broker. Keys it does not list
     *       never get here: the dispatcher refuses them.</li>
     * </ul>
     *
     * <p>What the connection accumulates (the Fetch parts still long-polling when the client was
     * answered, or read ahead) is a field here, confined to the connection's event loop.
     */
    private final class ConnectionRouter implements RequestHandler {
        private final FetchRoute fetch;
        private final BrokerHolds holds = new BrokerHolds();
        private final ShareRoute share = new ShareRoute(services, shareAnswers);
        private int anyBrokerCursor;

        ConnectionRouter(ConnectionContext connection) {
            this.fetch = new FetchRoute(services, connection, readAhead.enabled(), readAheadBudget);
        }

        @Override
        public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
            RouteKind route = request.knownApi().flatMap(ProxiedApis::routeOf).orElse(RouteKind.ANY_BROKER);
            if (route == RouteKind.ANY_BROKER) {
                return toAnyBroker(context, request);
            }
            if (route == RouteKind.ADDRESSED_BROKER) {
                // The dispatcher refuses these on a connection that addresses no broker; closed here too.
                return addressedBroker.route(context, request).orElseGet(() -> Replies.now(context.loop(),
                        new Reply.Close(request.describe() + " is served only on a broker's own port")));
            }
            ApiMessage body;
            try {
                body = request.decodeBody(ApiMessage.class);
            } catch (RuntimeException e) {
                return Replies.now(context.loop(), new Reply.Close(request.describe() + " body does not parse: " + e));
            }
            long holdMillis = holds.holdMillis(body);
            context.expectHeldFor(holdMillis);
            switch (route) {
                case PARTITIONS:
                    if (body instanceof ProduceRequestData produceData) {
                        return produce.handle(context, request, produceData);
                    }
                    if (body instanceof FetchRequestData fetchData) {
                        return fetch.handle(context, request, fetchData);
                    }
                    if (body instanceof ShareFetchRequestData shareFetch) {
                        return share.handle(context, request, shareFetch);
                    }
                    if (body instanceof ShareAcknowledgeRequestData shareAcknowledge) {
                        return share.handle(context, request, shareAcknowledge);
                    }
                    if (body instanceof DescribeProducersRequestData) {
                        // On a broker's own port it asks that broker (the Admin's brokerId option:
                        // a follower's view); elsewhere each partition's leader.
                        Optional<Future<Reply>> toAddressed = addressedBroker.route(context, request);
                        if (toAddressed.isPresent()) {
                            return toAddressed.get();
                        }
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
                case ADMIN:
                    return admin.handle(context, request, body, () -> toAnyBroker(context, request))
                            .orElseGet(() -> toAnyBroker(context, request));
                default:
                    throw new IllegalStateException(request.describe() + " should have been answered locally");
            }
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
