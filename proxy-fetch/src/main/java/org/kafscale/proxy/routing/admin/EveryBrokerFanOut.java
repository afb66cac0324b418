package org.kafscale.proxy.routing.admin;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.Answer;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * Listings each broker answers with its own part (ListGroups, ListTransactions). While a client
 * cannot tell the proxy's brokers apart, the request goes to every broker and the parts are merged,
 * each item once; a broker that fails makes the answer carry COORDINATOR_NOT_AVAILABLE, as a
 * broker that cannot list would, rather than a list silently short. When the connection addresses one
 * broker ({@link ConnectionContext#addressedBroker()}), that broker's own answer goes back, so a
 * client that asks every broker sees each item once.
 */
final class EveryBrokerFanOut {
    private final RoutingServices services;
    private final ConnectAttempts connect;

    EveryBrokerFanOut(RoutingServices services, ConnectAttempts connect) {
        this.services = services;
        this.connect = connect;
    }

    <R extends ApiMessage, I> Future<Reply> handle(ConnectionContext context, RequestFrame request, EveryBrokerApi<R, I> api) {
        TopologySnapshot snapshot = services.topology().snapshot();
        Optional<BrokerEndpoint> addressed = addressed(context.addressedBroker(), snapshot);
        if (addressed.isPresent()) {
            return services.forwarder().forwardToFirstReachable(context, request, List.of(addressed.get()), connect,
                    request.frame().retainedDuplicate(), 0, Errors.COORDINATOR_NOT_AVAILABLE);
        }
        List<BrokerEndpoint> brokers = new ArrayList<>(snapshot.brokers().values());
        if (brokers.isEmpty()) {
            return Replies.now(context.loop(), Replies.error(request, Errors.COORDINATOR_NOT_AVAILABLE));
        }
        services.observer().fannedOut(api.api(), brokers.size());
        Promise<Reply> reply = context.newReply();
        List<Future<Answer<R>>> parts = new ArrayList<>();
        for (BrokerEndpoint broker : brokers) {
            parts.add(services.forwarder().exchange(context, broker, request.frame().retainedDuplicate(), 0, false,
                    api.api(), request.apiVersion(), body -> api.parse().apply(body, request.apiVersion())));
        }
        int[] outstanding = {parts.size()};
        parts.forEach(part -> part.addListener(f -> {
            if (--outstanding[0] == 0) {
                try {
                    reply.trySuccess(merge(request, api, parts));
                } catch (RuntimeException e) {
                    reply.trySuccess(new Reply.Close("merging " + request.describe() + " failed: " + e));
                }
            }
        }));
        return reply;
    }

    private static Optional<BrokerEndpoint> addressed(OptionalInt id, TopologySnapshot snapshot) {
        return id.isPresent() ? snapshot.broker(id.getAsInt()) : Optional.empty();
    }

    private static <R extends ApiMessage, I> Reply merge(RequestFrame request, EveryBrokerApi<R, I> api,
                                                       List<Future<Answer<R>>> parts) {
        Map<String, I> items = new LinkedHashMap<>();
        List<R> answers = new ArrayList<>();
        short error = Errors.NONE.code();
        int throttle = 0;
        for (Future<Answer<R>> part : parts) {
            if (!part.isSuccess()) {
                error = Errors.COORDINATOR_NOT_AVAILABLE.code();
                continue;
            }
            Answer<R> answer = part.getNow();
            try {
                R data = answer.body();
                answers.add(data);
                throttle = Math.max(throttle, api.throttle().applyAsInt(data));
                if (api.errorCode().applyAsInt(data) != Errors.NONE.code()) {
                    error = (short) api.errorCode().applyAsInt(data);
                }
                api.items().apply(data).forEach(item -> items.putIfAbsent(api.keyOf().apply(item), item));
            } finally {
                answer.frame().release();
            }
        }
        return Reply.send(ResponseFrames.encode(api.api(), request.apiVersion(), request.correlationId(),
                api.merged().of(new ArrayList<>(items.values()), error, throttle, answers)));
    }
}
