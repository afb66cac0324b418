package org.kafscale.proxy.fetch.routing;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.routing.ProxiedApis;
import org.kafscale.proxy.core.routing.RouteKind;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each forwarded request to the one broker that can serve it, as the client's own bytes.
 *
 * <ul>
 *   <li>Partition APIs go to the owner of their partitions. A request whose partitions have
 *       several owners cannot be split yet: it gets NOT_LEADER_OR_FOLLOWER, so the client
 *       refreshes metadata and regroups (in brokers mode its grouping then matches).</li>
 *   <li>Group and transaction APIs go to the coordinator of their key.</li>
 *   <li>Everything else, including keys kafka-clients does not know, goes to a live broker.</li>
 * </ul>
 *
 * <p>Fetch sessions are turned off: each Fetch is sent downstream as a sessionless full fetch
 * (session id 0, epoch -1), so the broker answers with session id 0 and the client keeps sending
 * full fetches. A session tied to one broker could not survive partitions moving between brokers.
 */
public final class ForwardingRouter implements RequestHandler {
    private static final Logger LOGGER = LoggerFactory.getLogger(ForwardingRouter.class);

    private final Topology topology;
    private final BackendForwarder forwarder;
    private final AtomicInteger anyBrokerCursor = new AtomicInteger();

    public ForwardingRouter(Topology topology, long requestTimeoutMillis) {
        this.topology = topology;
        this.forwarder = new BackendForwarder(requestTimeoutMillis);
    }

    @Override
    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        Optional<ApiKeys> api = request.knownApi();
        RouteKind route = api.flatMap(ProxiedApis::routeOf).orElse(RouteKind.ANY_BROKER);
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
        BrokerEndpoint broker = brokers.get(Math.floorMod(anyBrokerCursor.getAndIncrement(), brokers.size()));
        return forwarder.forward(context, request, broker, request.frame().retainedDuplicate(), 0,
                Errors.REQUEST_TIMED_OUT);
    }

    private Future<Reply> toPartitionOwner(ConnectionContext context, RequestFrame request, AbstractRequest body) {
        TopologySnapshot snapshot = topology.snapshot();
        Set<Integer> owners = new HashSet<>();
        for (RoutingKeys.TopicPartitionKey key : RoutingKeys.partitions(body, snapshot)) {
            OptionalInt owner = key.topic() == null ? OptionalInt.empty() : snapshot.owner(key.topic(), key.partition());
            owner.ifPresent(owners::add);
        }
        if (owners.size() > 1) {
            LOGGER.debug("{} names partitions of brokers {}; answering NOT_LEADER_OR_FOLLOWER until fan-out",
                    request.describe(), owners);
            return Replies.now(context.loop(), Replies.error(request, Errors.NOT_LEADER_OR_FOLLOWER));
        }
        if (owners.isEmpty()) {
            // No partition has a known owner (unknown topics or ids): any broker answers with the
            // right error for each, which the client understands.
            return toAnyBroker(context, request);
        }
        BrokerEndpoint owner = snapshot.broker(owners.iterator().next()).orElseThrow();
        if (body instanceof ProduceRequest produce && produce.acks() == 0) {
            return forwarder.fireAndForget(context, request, owner, request.frame().retainedDuplicate());
        }
        Future<Reply> reply;
        if (body instanceof FetchRequest fetch) {
            reply = forwarder.forward(context, request, owner, sessionless(request, fetch.data()),
                    Math.max(0, fetch.data().maxWaitMs()), Errors.NOT_LEADER_OR_FOLLOWER);
        } else {
            reply = forwarder.forward(context, request, owner, request.frame().retainedDuplicate(), 0,
                    Errors.NOT_LEADER_OR_FOLLOWER);
        }
        // Added before the connection handler's listener, so it reads the answer before it is written.
        return reply.addListener(f -> dropStaleRoutes(request, owner, (Reply) f.getNow()));
    }

    /** The broker is authoritative: partitions it says it does not lead lose their route. */
    private void dropStaleRoutes(RequestFrame request, BrokerEndpoint broker, Reply reply) {
        if (!(reply instanceof Reply.Send send)) {
            return;
        }
        List<LeaderErrors.Partition> moved;
        try {
            moved = LeaderErrors.in(ApiKeys.forId(request.apiKey()), request.apiVersion(), send.frame(), topology.snapshot());
        } catch (RuntimeException e) {
            LOGGER.debug("{} answer from {} not inspected: {}", request.describe(), broker, e.toString());
            return;
        }
        for (LeaderErrors.Partition p : moved) {
            LOGGER.info("{} does not lead {}-{}; dropping the route", broker, p.topic(), p.partition());
            topology.invalidatePartition(p.topic(), p.partition());
        }
    }

    /** The Fetch as a sessionless full fetch; the client's bytes when they already are one. */
    private static ByteBuf sessionless(RequestFrame request, FetchRequestData data) {
        if (data.sessionId() == FetchMetadata.INVALID_SESSION_ID && data.sessionEpoch() == FetchMetadata.FINAL_EPOCH) {
            return request.frame().retainedDuplicate();
        }
        data.setSessionId(FetchMetadata.INVALID_SESSION_ID).setSessionEpoch(FetchMetadata.FINAL_EPOCH);
        data.forgottenTopicsData().clear();
        return RequestFrames.reencode(request, data);
    }

    private Future<Reply> toCoordinator(ConnectionContext context, RequestFrame request, CoordinatorKind kind,
                                        Set<String> keys) {
        List<CompletableFuture<Integer>> lookups = new ArrayList<>();
        for (String key : keys) {
            lookups.add(topology.coordinator(kind, key).toCompletableFuture());
        }
        CompletableFuture<Reply> routed = CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new))
                .thenApply(done -> {
                    Set<Integer> coordinators = new HashSet<>();
                    lookups.forEach(l -> coordinators.add(l.join()));
                    return coordinators;
                })
                .thenCompose(coordinators -> {
                    if (coordinators.size() != 1 || coordinators.contains(-1)) {
                        Errors error = coordinators.contains(-1) ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NOT_COORDINATOR;
                        return CompletableFuture.completedFuture(Replies.error(request, error));
                    }
                    Optional<BrokerEndpoint> broker = topology.snapshot().broker(coordinators.iterator().next());
                    if (broker.isEmpty()) {
                        return CompletableFuture.completedFuture(Replies.error(request, Errors.COORDINATOR_NOT_AVAILABLE));
                    }
                    CompletableFuture<Reply> sent = new CompletableFuture<>();
                    context.loop().execute(() -> forwarder.forward(context, request, broker.get(),
                                    request.frame().retainedDuplicate(), 0, Errors.COORDINATOR_NOT_AVAILABLE)
                            .addListener(f -> sent.complete((Reply) f.getNow())));
                    return sent;
                });
        return Replies.onLoop(context.loop(), routed);
    }
}
