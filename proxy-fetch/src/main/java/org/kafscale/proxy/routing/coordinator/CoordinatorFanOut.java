package org.kafscale.proxy.routing.coordinator;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.Topology;

/**
 * Requests that name several groups or transactional ids, whose coordinators may differ (an admin
 * client in single mode sends them all to node 0): the keys are looked up, the request is split
 * per coordinator, each part routed like any coordinator request ({@link CoordinatorRouter}: the
 * NOT_COORDINATOR hop, retries), and the results merged back in request order. When every key has
 * one coordinator the client's own bytes go, and the answer comes back unchanged.
 *
 * <p>A new such API is one {@link KeyedApi} in {@link KeyedApis} and its entry in {@code routing.apis.Apis}.
 */
public final class CoordinatorFanOut {
    private final Topology topology;
    private final CoordinatorRouter router;

    public CoordinatorFanOut(Topology topology, CoordinatorRouter router) {
        this.topology = topology;
        this.router = router;
    }

    /**
     * Routes a request that may name several keys: whole to their coordinator when they share one,
     * else split per coordinator and merged in request order.
     */
    public <Q extends ApiMessage, R extends ApiMessage, G> Future<Reply> route(
            ConnectionContext context, RequestFrame request, Q data, KeyedApi<Q, R, G> api) {
        List<String> keys = List.copyOf(new LinkedHashSet<>(api.keys().apply(data)));
        if (keys.size() <= 1) {
            return router.route(context, request, api.kind(), new LinkedHashSet<>(keys));
        }
        Promise<Reply> reply = context.newReply();
        Map<String, CompletableFuture<Integer>> lookups = new LinkedHashMap<>();
        keys.forEach(k -> lookups.put(k, topology.coordinator(api.kind(), k).toCompletableFuture()));
        CompletableFuture.allOf(lookups.values().toArray(CompletableFuture[]::new)).whenComplete((done, error) ->
                context.loop().execute(() -> {
                    try {
                        split(context, request, data, api, lookups, reply);
                    } catch (RuntimeException e) {
                        reply.trySuccess(new Reply.Close("splitting " + request.describe() + " failed: " + e));
                    }
                }));
        return reply;
    }

    private <Q extends ApiMessage, R extends ApiMessage, G> void split(
            ConnectionContext context, RequestFrame request, Q data, KeyedApi<Q, R, G> api,
            Map<String, CompletableFuture<Integer>> lookups, Promise<Reply> reply) {
        Map<Integer, List<String>> byCoordinator = new LinkedHashMap<>();
        lookups.forEach((key, lookup) -> byCoordinator.computeIfAbsent(
                lookup.isCompletedExceptionally() ? -1 : lookup.join(), c -> new ArrayList<>()).add(key));
        if (byCoordinator.size() == 1) {
            // One coordinator after all: the client's bytes, and its answer unchanged.
            router.route(context, request, api.kind(), new LinkedHashSet<>(lookups.keySet()))
                    .addListener(f -> Replies.settle(reply, f.isSuccess() ? (Reply) f.getNow() : new Reply.Close(String.valueOf(f.cause()))));
            return;
        }
        List<Future<Reply>> parts = new ArrayList<>();
        List<List<String>> partKeys = new ArrayList<>(byCoordinator.values());
        for (List<String> part : partKeys) {
            parts.add(router.route(context, request, RequestFrames.reencode(request, api.split().apply(data, part)), api.kind(),
                    new LinkedHashSet<>(part), 0));
        }
        int[] outstanding = {parts.size()};
        parts.forEach(p -> p.addListener(f -> {
            if (--outstanding[0] == 0) {
                try {
                    Replies.settle(reply, merge(request, data, api, parts, partKeys));
                } catch (RuntimeException e) {
                    Replies.settle(reply, new Reply.Close("merging " + request.describe() + " failed: " + e));
                }
            }
        }));
    }

    /** Each key's result from its coordinator's part; the keys of a part that failed carry its error. */
    private static <Q extends ApiMessage, R extends ApiMessage, G> Reply merge(
            RequestFrame request, Q data, KeyedApi<Q, R, G> api, List<Future<Reply>> parts, List<List<String>> partKeys) {
        try {
            Map<String, G> byKey = new HashMap<>();
            int throttle = 0;
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i).getNow() instanceof Reply.Send send) {
                    R response = api.parse().apply(ResponseFrames.body(api.api(), request.apiVersion(), send.frame()),
                            request.apiVersion());
                    throttle = Math.max(throttle, api.throttle().applyAsInt(response));
                    api.results().apply(response).forEach(result -> byKey.put(api.keyOf().apply(result), result));
                }
                for (String key : partKeys.get(i)) {
                    byKey.computeIfAbsent(key, k -> api.failed().apply(k, Errors.COORDINATOR_NOT_AVAILABLE));
                }
            }
            List<G> inRequestOrder = api.keys().apply(data).stream().map(byKey::get).toList();
            return Reply.send(ResponseFrames.encode(api.api(), request.apiVersion(), request.correlationId(),
                    api.merged().apply(inRequestOrder, throttle)));
        } finally {
            parts.forEach(part -> part.getNow().discard());
        }
    }

}
