package org.kafscale.proxy.routing;

import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
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
import org.kafscale.proxy.routing.apis.Apis;
import org.kafscale.proxy.routing.apis.BrokerHolds;
import org.kafscale.proxy.routing.apis.Call;
import org.kafscale.proxy.routing.apis.RouteSpec;
import org.kafscale.proxy.routing.apis.Routes;
import org.kafscale.proxy.routing.coordinator.CoordinatorFanOut;
import org.kafscale.proxy.routing.coordinator.CoordinatorRouter;
import org.kafscale.proxy.routing.coordinator.KeyedApi;
import org.kafscale.proxy.routing.engine.LeaderHints;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;
import org.kafscale.proxy.routing.engine.StaleRoutes;
import org.kafscale.proxy.routing.fetch.FetchRoute;
import org.kafscale.proxy.routing.fetch.ReadAheadBudget;
import org.kafscale.proxy.routing.fetch.ReadAheadSettings;
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
        this.produce = new ProduceRoute(services, produceRewriter, advertised.mode());
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
     * Routes the forwarded requests of one client connection as {@link Apis} says, and is the
     * {@link Routes} those entries send requests to. Keys the registry does not list never get
     * here (the dispatcher refuses them); should one, it goes to a live broker.
     *
     * <p>What the connection accumulates (the Fetch parts still long-polling when the client was
     * answered, or read ahead; share sessions; rebalance timeouts) is a field here, confined to the
     * connection's event loop.
     */
    private final class ConnectionRouter implements RequestHandler, Routes {
        private final FetchRoute fetch;
        private final BrokerHolds holds = new BrokerHolds();
        private final ShareRoute share = new ShareRoute(services, shareAnswers);
        private int anyBrokerCursor;

        ConnectionRouter(ConnectionContext connection) {
            this.fetch = new FetchRoute(services, connection, readAhead.enabled(), readAheadBudget);
        }

        @Override
        public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
            RouteSpec spec = Apis.routeOf(request);
            Future<Reply> answer = spec.handle(this, context, request);
            return spec.changesTopology() ? topologyChanges.afterChangeVisible(context, request, answer) : answer;
        }

        @Override
        public BrokerHolds holds() {
            return holds;
        }

        @Override
        public Future<Reply> produce(Call<ProduceRequestData> call) {
            return produce.handle(call.context(), call.request(), call.body());
        }

        @Override
        public Optional<Future<Reply>> produceAsBytes(ConnectionContext context, RequestFrame request) {
            return produce.asBytes(context, request);
        }

        @Override
        public Future<Reply> fetch(Call<FetchRequestData> call) {
            return fetch.handle(call.context(), call.request(), call.body());
        }

        @Override
        public Future<Reply> shareFetch(Call<ShareFetchRequestData> call) {
            return share.handle(call.context(), call.request(), call.body());
        }

        @Override
        public Future<Reply> shareAcknowledge(Call<ShareAcknowledgeRequestData> call) {
            return share.handle(call.context(), call.request(), call.body());
        }

        @Override
        public <Q extends ApiMessage, E, R extends ApiMessage, P> Future<Reply> byPartition(
                Call<Q> call, PartitionApi<Q, E, R, P> api) {
            return new PartitionExchange<>(services, call.context(), call.request(), call.body(), api).start();
        }

        @Override
        public Future<Reply> toGroupCoordinator(Call<?> call, String group) {
            return coordinators.route(call.context(), call.request(), call.request().frame().retainedDuplicate(),
                    CoordinatorKind.GROUP, Collections.singleton(group), call.holdMillis());
        }

        @Override
        public Future<Reply> toTransactionCoordinator(Call<?> call, String transactionalId) {
            return coordinators.route(call.context(), call.request(), CoordinatorKind.TRANSACTION, Set.of(transactionalId));
        }

        @Override
        public <Q extends ApiMessage, R extends ApiMessage, G> Future<Reply> byCoordinator(
                Call<Q> call, KeyedApi<Q, R, G> api) {
            return coordinatorFanOut.route(call.context(), call.request(), call.body(), api);
        }

        @Override
        public AdminApis admin() {
            return admin;
        }

        @Override
        public Optional<Future<Reply>> toAddressedBroker(ConnectionContext context, RequestFrame request) {
            return addressedBroker.route(context, request);
        }

        @Override
        public Future<Reply> toAnyBroker(ConnectionContext context, RequestFrame request) {
            List<BrokerEndpoint> brokers = new ArrayList<>(services.topology().snapshot().brokers().values());
            if (brokers.isEmpty()) {
                return Replies.now(context.loop(), Replies.error(request, Errors.REQUEST_TIMED_OUT));
            }
            // Round robin: each request starts at the next broker, and a retry moves on to the one after.
            Collections.rotate(brokers, -Math.floorMod(anyBrokerCursor++, brokers.size()));
            return services.forwarder().forwardToFirstReachable(context, request, brokers, anyBrokerConnect,
                    request.frame().retainedDuplicate(), 0, Errors.REQUEST_TIMED_OUT);
        }
    }
}
