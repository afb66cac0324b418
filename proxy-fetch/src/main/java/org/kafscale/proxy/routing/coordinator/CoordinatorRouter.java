package org.kafscale.proxy.routing.coordinator;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.backend.Answer;
import org.kafscale.proxy.core.backend.BackendForwarder;
import org.kafscale.proxy.routing.engine.Guard;
import org.kafscale.proxy.routing.engine.RetryPolicy;
import org.kafscale.proxy.routing.engine.RoutingServices;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends group and transaction requests to their coordinator as the client's bytes and relays the
 * answer unchanged. A broker that answers NOT_COORDINATOR is authoritative: the route is dropped
 * and the request goes to the next owner the topology names, up to {@link RetryPolicy#MAX_ATTEMPTS}
 * times, never to the same broker twice; after that the last NOT_COORDINATOR answer is relayed, so
 * the client rediscovers the coordinator itself.
 *
 * <p>A request that may change state is sent again after a connection failure only if it was never
 * written; reads (OffsetFetch, Heartbeat, the Describe APIs) always.
 */
public final class CoordinatorRouter {
    private static final Logger LOGGER = LoggerFactory.getLogger(CoordinatorRouter.class);
    private static final Set<ApiKeys> READS = EnumSet.of(ApiKeys.OFFSET_FETCH, ApiKeys.HEARTBEAT,
            ApiKeys.DESCRIBE_GROUPS, ApiKeys.CONSUMER_GROUP_DESCRIBE, ApiKeys.SHARE_GROUP_DESCRIBE,
            ApiKeys.STREAMS_GROUP_DESCRIBE, ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS);

    private final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);
    private final RateLimitedLog moved = RateLimitedLog.every10Seconds(LOGGER);

    private final Topology topology;
    private final BackendForwarder forwarder;
    private final RoutingObserver observer;

    public CoordinatorRouter(RoutingServices services) {
        this.observer = services.observer();
        this.topology = services.topology();
        this.forwarder = services.forwarder();
    }

    /** Routes a request whose keys belong to one coordinator, as the client's bytes. */
    public Future<Reply> route(ConnectionContext context, RequestFrame request, CoordinatorKind kind, Set<String> keys) {
        return route(context, request, request.frame().retainedDuplicate(), kind, keys, 0);
    }

    /**
     * Routes {@code frame} (the request, or a part of it naming only {@code keys}) to their
     * coordinator; ownership of the frame passes here.
     *
     * @param holdMillis how long the coordinator may legitimately hold the request beyond the
     *                   request timeout (a JoinGroup until the rebalance completes)
     */
    public Future<Reply> route(ConnectionContext context, RequestFrame request, ByteBuf frame, CoordinatorKind kind,
                               Set<String> keys, long holdMillis) {
        Exchange exchange = new Exchange(context, request, frame, kind, List.copyOf(keys), holdMillis);
        exchange.reply.addListener(f -> frame.release());
        exchange.attempt(1);
        return exchange.reply;
    }

    private final class Exchange {
        private final ConnectionContext context;
        private final RequestFrame request;
        private final ByteBuf frame;
        private final ApiKeys api;
        private final CoordinatorKind kind;
        private final List<String> keys;
        private final Promise<Reply> reply;
        private final Set<Integer> refused = new HashSet<>();
        private final long holdMillis;

        Exchange(ConnectionContext context, RequestFrame request, ByteBuf frame, CoordinatorKind kind, List<String> keys,
                 long holdMillis) {
            this.holdMillis = holdMillis;
            this.context = context;
            this.request = request;
            this.frame = frame;
            this.api = ApiKeys.forId(request.apiKey());
            this.kind = kind;
            this.keys = keys;
            this.reply = context.newReply();
        }

        void attempt(int attempt) {
            List<CompletableFuture<Integer>> lookups = new ArrayList<>();
            keys.forEach(key -> lookups.add(topology.coordinator(kind, key).toCompletableFuture()));
            CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new)).whenComplete((done, error) ->
                    context.loop().execute(() -> guarded(() -> {
                        Set<Integer> coordinators = new HashSet<>();
                        lookups.forEach(l -> coordinators.add(l.isCompletedExceptionally() ? -1 : l.join()));
                        onCoordinator(attempt, coordinators);
                    })));
        }

        private void onCoordinator(int attempt, Set<Integer> coordinators) {
            Integer id = coordinators.size() == 1 ? coordinators.iterator().next() : null;
            BrokerEndpoint broker = id == null ? null : topology.snapshot().broker(id).orElse(null);
            if (broker == null || refused.contains(id)) {
                retryOr(attempt, () -> Replies.error(request, coordinators.size() > 1
                        ? Errors.NOT_COORDINATOR : Errors.COORDINATOR_NOT_AVAILABLE));
                return;
            }
            forwarder.exchange(context, broker, frame.retainedDuplicate(), holdMillis, false, api, request.apiVersion(),
                    body -> ResponseFrames.errorCounts(api, request.apiVersion(), body)).addListener(f -> guarded(() -> {
                if (!f.isSuccess()) {
                    boolean resend = RetryPolicy.mayResend(f.cause(), !READS.contains(api));
                    if (!RetryPolicy.cancelled(f.cause())) {
                        failures.warn(context, "{} for {} failed at {}: {}{}", api.name, keys, broker,
                                f.cause().getMessage(), resend ? "; retrying on a fresh channel" : "");
                    }
                    if (resend && attempt < RetryPolicy.MAX_ATTEMPTS) {
                        observer.retried(api, RoutingObserver.RetryCause.CONNECTION);
                        retryOr(attempt, null);
                    } else {
                        reply.trySuccess(Replies.error(request, Errors.COORDINATOR_NOT_AVAILABLE));
                    }
                    return;
                }
                @SuppressWarnings("unchecked")
                Answer<Map<Errors, Integer>> answer = (Answer<Map<Errors, Integer>>) f.getNow();
                // Kafka's own error count per API says whether any part of the answer is NOT_COORDINATOR.
                if (answer.body().containsKey(Errors.NOT_COORDINATOR) && attempt < RetryPolicy.MAX_ATTEMPTS) {
                    moved.info(context, "{} is not the coordinator of {} {}; dropping the route", broker, kind, keys);
                    answer.frame().release();
                    refused.add(id);
                    keys.forEach(key -> topology.invalidateCoordinator(kind, key));
                    observer.retried(api, RoutingObserver.RetryCause.NOT_COORDINATOR);
                    retryOr(attempt, null);
                    return;
                }
                if (!reply.trySuccess(Reply.send(answer.frame()))) {
                    answer.frame().release();
                }
            }));
        }

        private void guarded(Runnable step) {
            Guard.run(reply, context, request, step);
        }

        /** Schedules the next attempt, or answers with {@code last} when none is left. */
        private void retryOr(int attempt, java.util.function.Supplier<Reply> last) {
            if (attempt >= RetryPolicy.MAX_ATTEMPTS) {
                reply.trySuccess(last != null ? last.get() : Replies.error(request, Errors.COORDINATOR_NOT_AVAILABLE));
                return;
            }
            context.loop().schedule(() -> guarded(() -> attempt(attempt + 1)), RetryPolicy.backoffMillis(attempt + 1),
                    TimeUnit.MILLISECONDS);
        }
    }
}
