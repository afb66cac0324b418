package org.kafscale.proxy.fetch.partition;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.routing.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.fetch.routing.Answer;
import org.kafscale.proxy.fetch.routing.BackendForwarder;
import org.kafscale.proxy.fetch.routing.OwnerGroups;
import org.kafscale.proxy.fetch.routing.PartitionRef;
import org.kafscale.proxy.fetch.routing.RetryPolicy;
import org.kafscale.proxy.fetch.routing.StaleRoutes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read-only partition API (ListOffsets, OffsetForLeaderEpoch) or DeleteRecords split by owner,
 * sent concurrently and merged at the client's version. One owner: the client's bytes go out and
 * the answer comes back unchanged unless something needs retrying. Leader-class partitions retry
 * on their new owner, connection failures on a fresh channel (these requests are safe to repeat:
 * DeleteRecords moves a low watermark to a given offset, which is idempotent).
 */
public final class PartitionFanOut<Q extends ApiMessage, R extends ApiMessage, P> {
    private static final Logger LOGGER = LoggerFactory.getLogger(PartitionFanOut.class);

    private final ApiKeys api;
    private final PartitionApi<Q, R, P> shape;
    private final Topology topology;
    private final BackendForwarder forwarder;
    private final RoutingObserver observer;

    PartitionFanOut(ApiKeys api, PartitionApi<Q, R, P> shape, Topology topology, BackendForwarder forwarder,
                    RoutingObserver observer) {
        this.observer = observer;
        this.api = api;
        this.shape = shape;
        this.topology = topology;
        this.forwarder = forwarder;
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, Q data) {
        Exchange exchange = new Exchange(context, request, data);
        exchange.round(1);
        return exchange.reply;
    }

    private final class Exchange {
        private final ConnectionContext context;
        private final RequestFrame request;
        private final Q data;
        private final Promise<Reply> reply;
        private final List<PartitionRef> pending;
        private final Map<PartitionRef, P> results = new HashMap<>();
        private final Map<PartitionRef, Set<Integer>> refusedBy = new HashMap<>();
        private final Map<PartitionRef, Errors> lastError = new HashMap<>();
        private int throttleMillis;

        Exchange(ConnectionContext context, RequestFrame request, Q data) {
            this.context = context;
            this.request = request;
            this.data = data;
            this.reply = context.newReply();
            this.pending = new ArrayList<>(shape.partitions(data, topology.snapshot()));
        }

        void round(int attempt) {
            TopologySnapshot snapshot = topology.snapshot();
            Map<Integer, List<PartitionRef>> byOwner = OwnerGroups.of(pending, snapshot, refusedBy);
            List<PartitionRef> unroutable = byOwner.remove(OwnerGroups.NO_OWNER);
            if (unroutable != null) {
                unroutable.forEach(ref -> lastError.putIfAbsent(ref, OwnerGroups.whyNoOwner(ref, snapshot)));
            }
            if (byOwner.isEmpty()) {
                finishOrRetry(attempt);
                return;
            }
            if (attempt == 1) {
                observer.fannedOut(api, byOwner.size());
            }
            boolean passThrough = attempt == 1 && byOwner.size() == 1
                    && byOwner.values().iterator().next().size() == pending.size();
            int[] outstanding = {byOwner.size()};
            for (Map.Entry<Integer, List<PartitionRef>> group : byOwner.entrySet()) {
                BrokerEndpoint broker = snapshot.broker(group.getKey()).orElseThrow();
                List<PartitionRef> parts = group.getValue();
                ByteBuf frame = passThrough ? request.frame().retainedDuplicate()
                        : RequestFrames.reencode(request, shape.subRequest(data, parts));
                forwarder.exchange(context, broker, frame, 0, false, api, request.apiVersion(),
                        body -> shape.parseResponse(body, request.apiVersion())).addListener(f -> {
                    if (f.isSuccess()) {
                        @SuppressWarnings("unchecked")
                        Answer<R> answer = (Answer<R>) f.getNow();
                        absorb(broker, parts, answer.body());
                        if (passThrough && pending.isEmpty()) {
                            reply.trySuccess(Reply.send(answer.frame()));
                            return;
                        }
                        answer.frame().release();
                    } else {
                        retryLater(broker, parts, f.cause());
                    }
                    if (--outstanding[0] == 0) {
                        finishOrRetry(attempt);
                    }
                });
            }
        }

        private void absorb(BrokerEndpoint broker, List<PartitionRef> parts, R response) {
            throttleMillis = Math.max(throttleMillis, shape.throttleTimeMs(response));
            Map<String, P> byKey = shape.results(response);
            for (PartitionRef ref : parts) {
                P result = byKey.get(ref.answerKey());
                if (result == null) {
                    continue;
                }
                if (RetryPolicy.isLeaderClass(shape.errorCode(result))) {
                    refusedBy.computeIfAbsent(ref, r -> new HashSet<>()).add(broker.id());
                    lastError.put(ref, Errors.forCode(shape.errorCode(result)));
                    StaleRoutes.drop(topology, broker, ref, shape.errorCode(result));
                    observer.retried(api, RoutingObserver.RetryCause.LEADER);
                } else {
                    results.put(ref, result);
                    pending.remove(ref);
                }
            }
        }

        private void retryLater(BrokerEndpoint broker, List<PartitionRef> parts, Throwable cause) {
            if (!RetryPolicy.cancelled(cause)) {
                LOGGER.warn("{} part for {} partitions failed at {}: {}; retrying on a fresh channel", api.name,
                        parts.size(), broker, cause.getMessage());
            }
            parts.forEach(ref -> lastError.put(ref, Errors.REQUEST_TIMED_OUT));
            observer.retried(api, RoutingObserver.RetryCause.CONNECTION);
        }

        private void finishOrRetry(int attempt) {
            if (pending.isEmpty() || attempt >= RetryPolicy.MAX_ATTEMPTS) {
                for (PartitionRef ref : pending) {
                    results.put(ref, shape.synthetic(ref, lastError.getOrDefault(ref, Errors.NOT_LEADER_OR_FOLLOWER)));
                }
                pending.clear();
                reply.trySuccess(Reply.send(ResponseFrames.encode(api, request.apiVersion(), request.correlationId(),
                        shape.merge(data, results, throttleMillis))));
                return;
            }
            context.loop().schedule(() -> round(attempt + 1), RetryPolicy.backoffMillis(attempt + 1), TimeUnit.MILLISECONDS);
        }
    }
}
