package org.kafscale.proxy.fetch.routing;

import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.routing.ProxiedApis;
import org.kafscale.proxy.core.routing.RoutingObserver;
import org.kafscale.proxy.core.routing.RouteKind;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.fetch.coordinator.CoordinatorRouter;
import org.kafscale.proxy.fetch.coordinator.ListGroupsFanOut;
import org.kafscale.proxy.fetch.coordinator.OffsetFetchSplitter;
import org.kafscale.proxy.fetch.fetch.FetchFanOut;
import org.kafscale.proxy.fetch.partition.PartitionFanOuts;
import org.kafscale.proxy.fetch.produce.ProduceFanOut;
import org.kafscale.proxy.fetch.produce.ProduceRewriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each forwarded request to the brokers that can serve it.
 *
 * <ul>
 *   <li>Produce and Fetch are split by partition owner, fanned out and merged
 *       ({@link ProduceFanOut}, {@link FetchFanOut}).</li>
 *   <li>ListOffsets, OffsetForLeaderEpoch and DeleteRecords are split the same way
 *       ({@link PartitionFanOuts}).</li>
 *   <li>Group and transaction APIs go to the coordinator of their key ({@link CoordinatorRouter}).</li>
 *   <li>ListGroups goes to every broker and the lists are merged ({@link ListGroupsFanOut}).</li>
 *   <li>Everything else, including keys kafka-clients does not know, goes to a live broker.</li>
 * </ul>
 */
public final class ForwardingRouter implements RequestHandler {
    private static final Logger LOGGER = LoggerFactory.getLogger(ForwardingRouter.class);

    private final Topology topology;
    private final BackendForwarder forwarder;
    private final AtomicInteger anyBrokerCursor = new AtomicInteger();
    private final ConnectAttempts anyBrokerConnect;

    private final ProduceFanOut produce;
    private final FetchFanOut fetch;
    private final PartitionFanOuts otherPartitionApis;
    private final CoordinatorRouter coordinators;
    private final OffsetFetchSplitter offsetFetchSplitter;
    private final ListGroupsFanOut listGroups;

    /**
     * @param anyBrokerConnect connection attempts for requests any broker can answer
     * @param produceRewriter consulted before each Produce is split (the LFS rewrite)
     */
    public ForwardingRouter(Topology topology, AdvertisedListener advertised, long requestTimeoutMillis,
                            ConnectAttempts anyBrokerConnect, RoutingObserver observer,
                            ProduceRewriter produceRewriter) {
        this.topology = topology;
        this.anyBrokerConnect = anyBrokerConnect;
        this.forwarder = new BackendForwarder(requestTimeoutMillis);
        LeaderHints hints = new LeaderHints(advertised);
        this.produce = new ProduceFanOut(topology, forwarder, hints, observer, produceRewriter);
        this.fetch = new FetchFanOut(topology, forwarder, hints, observer);
        this.otherPartitionApis = new PartitionFanOuts(topology, forwarder, observer);
        this.coordinators = new CoordinatorRouter(topology, forwarder, observer);
        this.offsetFetchSplitter = new OffsetFetchSplitter(topology, coordinators);
        this.listGroups = new ListGroupsFanOut(topology, forwarder);
    }

    @Override
    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        Optional<ApiKeys> api = request.knownApi();
        RouteKind route = api.flatMap(ProxiedApis::routeOf).orElse(RouteKind.ANY_BROKER);
        if (request.isApi(ApiKeys.LIST_GROUPS)) {
            return listGroups.handle(context, request);
        }
        if (route == RouteKind.ANY_BROKER) {
            return toAnyBroker(context, request);
        }
        AbstractRequest body;
        try {
            body = request.decodeBody();
        } catch (RuntimeException e) {
            return Replies.now(context.loop(), new Reply.Close(request.describe() + " body does not parse: " + e));
        }
        switch (route) {
            case PARTITIONS:
                return toPartitionOwner(context, request, body);
            case GROUP_COORDINATOR:
                if (body instanceof OffsetFetchRequest offsetFetch) {
                    return offsetFetchSplitter.handle(context, request, offsetFetch.data());
                }
                return toCoordinator(context, request, CoordinatorKind.GROUP, RoutingKeys.groups(body));
            case TRANSACTION_COORDINATOR:
                Optional<String> txnId = RoutingKeys.transactionalId(body);
                return txnId.isEmpty() ? toAnyBroker(context, request)
                        : toCoordinator(context, request, CoordinatorKind.TRANSACTION, Set.of(txnId.get()));
            default:
                throw new IllegalStateException(request.describe() + " should have been answered locally");
        }
    }

    private Future<Reply> toAnyBroker(ConnectionContext context, RequestFrame request) {
        List<BrokerEndpoint> brokers = new ArrayList<>(topology.snapshot().brokers().values());
        if (brokers.isEmpty()) {
            return Replies.now(context.loop(), Replies.error(request, Errors.REQUEST_TIMED_OUT));
        }
        // Round robin: each request starts at the next broker, and a retry moves on to the one after.
        Collections.rotate(brokers, -Math.floorMod(anyBrokerCursor.getAndIncrement(), brokers.size()));
        return forwarder.forwardToFirstReachable(context, request, brokers, anyBrokerConnect,
                request.frame().retainedDuplicate(), 0, Errors.REQUEST_TIMED_OUT);
    }

    private Future<Reply> toPartitionOwner(ConnectionContext context, RequestFrame request, AbstractRequest body) {
        if (body instanceof ProduceRequest produceRequest) {
            return produce.handle(context, request, produceRequest);
        }
        if (body instanceof FetchRequest fetchRequest) {
            return fetch.handle(context, request, fetchRequest.data());
        }
        return otherPartitionApis.handle(context, request, body).orElseGet(() -> toAnyBroker(context, request));
    }

    private Future<Reply> toCoordinator(ConnectionContext context, RequestFrame request, CoordinatorKind kind,
                                        Set<String> keys) {
        return coordinators.route(context, request, kind, keys);
    }

}
