package org.kafscale.proxy.routing.admin;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * Config requests split by the broker each resource needs: a broker's own resources (BROKER with
 * an id, BROKER_LOGGER) go to the broker they name, the rest (TOPIC, GROUP, CLIENT_METRICS, the
 * cluster-wide BROKER default) ride along with one of those parts, or go to any live broker. The
 * results are merged back in request order. A resource naming a broker the proxy does not know is
 * answered INVALID_REQUEST, as a broker answers an id that is not its own.
 *
 * <p>When the connection addresses one broker ({@link ConnectionContext#addressedBroker()}, a
 * port per broker), the whole request goes to that broker, which answers (and refuses another
 * broker's id) as it does directly.
 */
final class ConfigResourceRoute {
    /** The part that any broker may answer. */
    private static final int ANY_BROKER = -1;

    private final RoutingServices services;
    private final ConnectAttempts connect;

    ConfigResourceRoute(RoutingServices services, ConnectAttempts connect) {
        this.services = services;
        this.connect = connect;
    }

    /**
     * @param shown each result as the client may see it (DescribeConfigs: broker addresses hidden)
     */
    <Q extends ApiMessage, S, R extends ApiMessage, G> Future<Reply> route(
            ConnectionContext context, RequestFrame request, Q data, ConfigResourceApi<Q, S, R, G> api,
            UnaryOperator<G> shown) {
        TopologySnapshot snapshot = services.topology().snapshot();
        OptionalInt addressed = context.addressedBroker();
        Map<ConfigResourceKey, G> refused = new HashMap<>();
        Map<Integer, List<S>> byBroker = new LinkedHashMap<>();
        List<S> anyBroker = new ArrayList<>();
        for (S resource : api.resources().apply(data)) {
            ConfigResourceKey key = api.resourceOf().apply(resource);
            if (addressed.isPresent() && snapshot.broker(addressed.getAsInt()).isPresent()) {
                // The client talks to one broker: that broker answers all, as it would directly.
                byBroker.computeIfAbsent(addressed.getAsInt(), b -> new ArrayList<>()).add(resource);
                continue;
            }
            if (!key.namesOneBroker()) {
                anyBroker.add(resource);
                continue;
            }
            OptionalInt id = key.brokerId();
            if (id.isEmpty()) {
                refused.put(key, api.failed().apply(resource, Errors.INVALID_REQUEST,
                        "Broker id must be an integer, but it is: " + key.name()));
            } else if (snapshot.broker(id.getAsInt()).isEmpty()) {
                refused.put(key, api.failed().apply(resource, Errors.INVALID_REQUEST,
                        "Unexpected node id " + id.getAsInt() + ": no such broker behind this proxy"));
            } else {
                byBroker.computeIfAbsent(id.getAsInt(), b -> new ArrayList<>()).add(resource);
            }
        }
        if (!anyBroker.isEmpty()) {
            // Any broker serves these: with the first broker's part when there is one (a request fewer).
            if (byBroker.isEmpty()) {
                byBroker.put(ANY_BROKER, anyBroker);
            } else {
                byBroker.values().iterator().next().addAll(anyBroker);
            }
        }
        if (byBroker.size() > 1) {
            services.observer().fannedOut(api.api(), byBroker.size());
        }
        boolean whole = byBroker.size() == 1 && refused.isEmpty();
        List<Future<Reply>> parts = new ArrayList<>();
        List<Set<ConfigResourceKey>> partKeys = new ArrayList<>();
        byBroker.forEach((broker, resources) -> {
            ByteBuf frame = whole ? request.frame().retainedDuplicate()
                    : RequestFrames.reencode(request, api.split().apply(data, resources));
            parts.add(services.forwarder().forwardToFirstReachable(context, request, brokersFor(broker, snapshot),
                    connect, frame, 0, Errors.REQUEST_TIMED_OUT));
            partKeys.add(resources.stream().map(api.resourceOf()).collect(Collectors.toSet()));
        });
        Promise<Reply> reply = context.newReply();
        if (parts.isEmpty()) {
            Replies.settle(reply, merge(request, data, api, parts, partKeys, refused, shown));
            return reply;
        }
        int[] outstanding = {parts.size()};
        parts.forEach(p -> p.addListener(f -> {
            if (--outstanding[0] == 0) {
                try {
                    Replies.settle(reply, merge(request, data, api, parts, partKeys, refused, shown));
                } catch (RuntimeException e) {
                    Replies.settle(reply, new Reply.Close("merging " + request.describe() + " failed: " + e));
                }
            }
        }));
        return reply;
    }

    /** The broker a part must reach, or every live broker (starting anywhere) for the any-broker part. */
    private static List<BrokerEndpoint> brokersFor(int broker, TopologySnapshot snapshot) {
        if (broker != ANY_BROKER) {
            return List.of(snapshot.broker(broker).orElseThrow());
        }
        List<BrokerEndpoint> all = new ArrayList<>(snapshot.brokers().values());
        Collections.rotate(all, -ThreadLocalRandom.current().nextInt(Math.max(1, all.size())));
        return all;
    }

    /**
     * Each resource's result from the part it was sent in. A part that failed carries the error
     * answer to the whole request, which names every resource: only its own resources are taken
     * from it, so another part's results stand.
     */
    private static <Q extends ApiMessage, S, R extends ApiMessage, G> Reply merge(
            RequestFrame request, Q data, ConfigResourceApi<Q, S, R, G> api, List<Future<Reply>> parts,
            List<Set<ConfigResourceKey>> partKeys, Map<ConfigResourceKey, G> refused, UnaryOperator<G> shown) {
        try {
            Map<ConfigResourceKey, G> byKey = new HashMap<>(refused);
            int throttle = 0;
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i).getNow() instanceof Reply.Send send) {
                    Set<ConfigResourceKey> own = partKeys.get(i);
                    R response = api.parse().apply(ResponseFrames.body(api.api(), request.apiVersion(), send.frame()),
                            request.apiVersion());
                    throttle = Math.max(throttle, api.throttle().applyAsInt(response));
                    for (G result : api.results().apply(response)) {
                        ConfigResourceKey key = api.resultOf().apply(result);
                        if (own.contains(key)) {
                            byKey.putIfAbsent(key, shown.apply(result));
                        }
                    }
                }
            }
            List<G> inRequestOrder = api.resources().apply(data).stream().map(resource -> {
                G result = byKey.get(api.resourceOf().apply(resource));
                return result != null ? result : api.failed().apply(resource, Errors.REQUEST_TIMED_OUT, null);
            }).toList();
            return Reply.send(ResponseFrames.encode(api.api(), request.apiVersion(), request.correlationId(),
                    api.merged().apply(inRequestOrder, throttle)));
        } finally {
            parts.forEach(part -> part.getNow().discard());
        }
    }

}
