package org.kafscale.proxy.routing.fetch;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.message.FetchRequestData;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * The Fetches of one client connection, with the parts its earlier Fetches left parked or read
 * ahead; what is held is released when the connection closes.
 */
public final class FetchRoute {
    private final RoutingServices services;
    private final ParkedPolls parked;
    private final FetchPrefetcher prefetcher;

    /**
     * @param connection the client connection whose Fetches these are
     * @param readAhead whether to read ahead ({@link ReadAheadSettings#enabled})
     * @param budget what every connection's read-ahead may hold together
     */
    public FetchRoute(RoutingServices services, ConnectionContext connection, boolean readAhead,
                      ReadAheadBudget budget) {
        this.services = services;
        this.parked = new ParkedPolls(services.partFailures(), connection, budget);
        this.prefetcher = readAhead ? new ReadAheadPrefetcher(parked) : FetchPrefetcher.NONE;
        connection.onClose(parked::close);
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, FetchRequestData data) {
        return new PartitionExchange<>(services, context, request, data,
                new FetchApi(data, request, services.hints(), parked, context.loop(), prefetcher)).start();
    }
}
