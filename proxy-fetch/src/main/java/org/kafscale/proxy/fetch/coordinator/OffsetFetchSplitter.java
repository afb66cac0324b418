package org.kafscale.proxy.fetch.coordinator;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ResponseHeader;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;

/**
 * OffsetFetch v8+ may name several groups with different coordinators (an admin client in single
 * mode sends them all to node 0): the request is split per coordinator, each part routed like any
 * group request, and the groups merged back in request order.
 */
public final class OffsetFetchSplitter {
    private static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(OffsetFetchSplitter.class);
    private final Topology topology;
    private final CoordinatorRouter router;

    public OffsetFetchSplitter(Topology topology, CoordinatorRouter router) {
        this.topology = topology;
        this.router = router;
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, OffsetFetchRequestData data) {
        List<String> groups = data.groups().stream().map(OffsetFetchRequestGroup::groupId).toList();
        if (request.apiVersion() < 8 || new LinkedHashSet<>(groups).size() <= 1) {
            return router.route(context, request, CoordinatorKind.GROUP,
                    new LinkedHashSet<>(groups.isEmpty() ? List.of(data.groupId()) : groups));
        }
        Promise<Reply> reply = context.newReply();
        Map<String, CompletableFuture<Integer>> lookups = new LinkedHashMap<>();
        groups.forEach(g -> lookups.put(g, topology.coordinator(CoordinatorKind.GROUP, g).toCompletableFuture()));
        CompletableFuture.allOf(lookups.values().toArray(CompletableFuture[]::new)).whenComplete((done, error) ->
                context.loop().execute(() -> split(context, request, data, lookups, reply)));
        return reply;
    }

    private void split(ConnectionContext context, RequestFrame request, OffsetFetchRequestData data,
                       Map<String, CompletableFuture<Integer>> lookups, Promise<Reply> reply) {
        Map<Integer, List<OffsetFetchRequestGroup>> byCoordinator = new LinkedHashMap<>();
        for (OffsetFetchRequestGroup group : data.groups()) {
            CompletableFuture<Integer> lookup = lookups.get(group.groupId());
            int coordinator = lookup.isCompletedExceptionally() ? -1 : lookup.join();
            byCoordinator.computeIfAbsent(coordinator, c -> new ArrayList<>()).add(group);
        }
        LOGGER.debug("OffsetFetch for {} groups split across coordinators {}", data.groups().size(), byCoordinator.keySet());
        List<Future<Reply>> parts = new ArrayList<>();
        for (List<OffsetFetchRequestGroup> part : byCoordinator.values()) {
            OffsetFetchRequestData sub = new OffsetFetchRequestData().setRequireStable(data.requireStable())
                    .setGroups(new ArrayList<>(part));
            parts.add(router.route(context, request, RequestFrames.reencode(request, sub), CoordinatorKind.GROUP,
                    new LinkedHashSet<>(part.stream().map(OffsetFetchRequestGroup::groupId).toList())));
        }
        int[] outstanding = {parts.size()};
        parts.forEach(p -> p.addListener(f -> {
            if (--outstanding[0] == 0) {
                reply.setSuccess(merge(request, data, parts));
            }
        }));
    }

    /** Each group's answer from its coordinator's part, in request order; a part that failed answers its groups with its error. */
    private static Reply merge(RequestFrame request, OffsetFetchRequestData data, List<Future<Reply>> parts) {
        Map<String, OffsetFetchResponseGroup> byGroup = new HashMap<>();
        int throttle = 0;
        for (Future<Reply> part : parts) {
            Reply answer = part.getNow();
            if (!(answer instanceof Reply.Send send)) {
                answer.discard();
                continue;
            }
            try {
                ByteBuffer view = send.frame().nioBuffer();
                ResponseHeader.parse(view, ApiKeys.OFFSET_FETCH.responseHeaderVersion(request.apiVersion()));
                OffsetFetchResponseData response = new OffsetFetchResponseData(new ByteBufferAccessor(view), request.apiVersion());
                throttle = Math.max(throttle, response.throttleTimeMs());
                response.groups().forEach(g -> byGroup.put(g.groupId(), g));
            } finally {
                send.frame().release();
            }
        }
        OffsetFetchResponseData merged = new OffsetFetchResponseData().setThrottleTimeMs(throttle);
        for (OffsetFetchRequestGroup group : data.groups()) {
            merged.groups().add(byGroup.getOrDefault(group.groupId(), new OffsetFetchResponseGroup()
                    .setGroupId(group.groupId()).setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())));
        }
        return Reply.send(ResponseFrames.encode(ApiKeys.OFFSET_FETCH, request.apiVersion(), request.correlationId(), merged));
    }
}
