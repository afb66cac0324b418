package org.kafscale.proxy.routing.fetch;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.FetchRequestData;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;

/** The Fetches of one client connection, with the long polls its earlier Fetches left parked. */
public final class FetchRoute {
    private final RoutingServices services;
    private final ParkedPolls parked;

    public FetchRoute(RoutingServices services) {
        this.services = services;
        this.parked = new ParkedPolls(services.partFailures());
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, FetchRequestData data) {
        return new PartitionExchange<>(services, context, request, data,
                new FetchApi(data, request.apiVersion(), services.hints(), parked)).start();
    }
}
