package org.kafscale.proxy.routing.apis;

import io.netty.util.concurrent.Future;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;

/**
 * How one forwarded API reaches the brokers: its route, how long a broker may hold it, and whether
 * its answer waits for the topology to show the change it made. {@link Apis} holds one per key.
 */
public sealed interface RouteSpec permits RouteSpec.Opaque, RouteSpec.Typed {

    ApiKeys api();

    /** Whether the answer is held until the topology shows the topics it created or deleted. */
    boolean changesTopology();

    Future<Reply> handle(Routes routes, ConnectionContext context, RequestFrame request);

    /**
     * Forwarded as the client's bytes: the body is never decoded (a body that does not parse is the
     * broker's to refuse), and no broker holds it.
     */
    record Opaque(ApiKeys api, OpaqueRoute route, boolean changesTopology) implements RouteSpec {
        /** The answer waits until the topology shows the change the broker reports done. */
        public Opaque changingTopology() {
            return new Opaque(api, route, true);
        }

        @Override
        public Future<Reply> handle(Routes routes, ConnectionContext context, RequestFrame request) {
            return route.handle(routes, context, request);
        }
    }

    /**
     * Decoded, then routed on its typed body. A body that does not parse closes the connection, as
     * a broker would. With {@code bytesFirst}, a request whose body nothing has read yet is offered
     * to it first, and decoded only when it declines.
     */
    record Typed<Q extends ApiMessage>(ApiKeys api, Class<Q> body, Hold<Q> hold, BodyRoute<Q> route,
                                       BytesFirst bytesFirst) implements RouteSpec {
        /** A broker may hold it as long as {@code hold} says. */
        public Typed<Q> heldFor(Hold<Q> hold) {
            return new Typed<>(api, body, hold, route, bytesFirst);
        }

        /** Offered as the client's bytes to {@code bytesFirst} before it is decoded (no broker holds it then). */
        public Typed<Q> asBytesWhen(BytesFirst bytesFirst) {
            return new Typed<>(api, body, hold, route, bytesFirst);
        }

        @Override
        public boolean changesTopology() {
            return false;
        }

        @Override
        public Future<Reply> handle(Routes routes, ConnectionContext context, RequestFrame request) {
            if (bytesFirst != null && !request.bodyDecoded()) {
                Optional<Future<Reply>> asBytes = bytesFirst.handle(routes, context, request);
                if (asBytes.isPresent()) {
                    return asBytes.get();
                }
            }
            Q data;
            try {
                data = request.decodeBody(body);
            } catch (RuntimeException e) {
                return Replies.now(context.loop(), new Reply.Close(request.describe() + " body does not parse: " + e));
            }
            long holdMillis = hold.millis(routes.holds(), data);
            context.expectHeldFor(holdMillis);
            return route.handle(routes, new Call<>(context, request, data, holdMillis));
        }
    }
}
