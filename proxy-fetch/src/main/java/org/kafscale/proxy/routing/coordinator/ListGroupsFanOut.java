package org.kafscale.proxy.routing.coordinator;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.backend.Answer;
import org.kafscale.proxy.core.backend.BackendForwarder;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * ListGroups: each broker lists only the groups it coordinates, and a client cannot tell the
 * proxy's brokers apart, so the request goes to every broker and the lists are merged (each group
 * once). A broker that fails makes the answer carry its error, as a broker that cannot list would.
 */
public final class ListGroupsFanOut {
    private final Topology topology;
    private final BackendForwarder forwarder;

    public ListGroupsFanOut(RoutingServices services) {
        this.topology = services.topology();
        this.forwarder = services.forwarder();
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        List<BrokerEndpoint> brokers = new ArrayList<>(topology.snapshot().brokers().values());
        if (brokers.isEmpty()) {
            return Replies.now(context.loop(), Replies.error(request, Errors.COORDINATOR_NOT_AVAILABLE));
        }
        Promise<Reply> reply = context.newReply();
        List<Future<Answer<ListGroupsResponseData>>> parts = new ArrayList<>();
        for (BrokerEndpoint broker : brokers) {
            parts.add(forwarder.exchange(context, broker, request.frame().retainedDuplicate(), 0, false,
                    ApiKeys.LIST_GROUPS, request.apiVersion(), body -> new ListGroupsResponseData(body, request.apiVersion())));
        }
        int[] outstanding = {parts.size()};
        parts.forEach(part -> part.addListener(f -> {
            if (--outstanding[0] == 0) {
                try {
                    reply.trySuccess(merge(request, parts));
                } catch (RuntimeException e) {
                    reply.trySuccess(new Reply.Close("merging " + request.describe() + " failed: " + e));
                }
            }
        }));
        return reply;
    }

    private static Reply merge(RequestFrame request, List<Future<Answer<ListGroupsResponseData>>> parts) {
        Map<String, ListedGroup> groups = new LinkedHashMap<>();
        ListGroupsResponseData merged = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
        for (Future<Answer<ListGroupsResponseData>> part : parts) {
            if (!part.isSuccess()) {
                merged.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
                continue;
            }
            Answer<ListGroupsResponseData> answer = part.getNow();
            try {
                ListGroupsResponseData data = answer.body();
                merged.setThrottleTimeMs(Math.max(merged.throttleTimeMs(), data.throttleTimeMs()));
                if (data.errorCode() != Errors.NONE.code()) {
                    merged.setErrorCode(data.errorCode());
                }
                data.groups().forEach(g -> groups.putIfAbsent(g.groupId(), g));
            } finally {
                answer.frame().release();
            }
        }
        merged.groups().addAll(groups.values());
        return Reply.send(ResponseFrames.encode(ApiKeys.LIST_GROUPS, request.apiVersion(), request.correlationId(), merged));
    }
}
