package org.kafscale.proxy.routing.apis;

import io.netty.util.concurrent.Future;
import java.util.Optional;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.routing.admin.AdminApis;
import org.kafscale.proxy.routing.coordinator.KeyedApi;
import org.kafscale.proxy.routing.engine.PartitionApi;

/**
 * The destinations a route in {@link Apis} may send one client connection's request to. The routes
 * are shared; what a connection accumulates (parked Fetch polls, share sessions, remembered
 * rebalance timeouts, the round-robin cursor) lives behind this, on the connection's event loop.
 */
public interface Routes {

    /** What this connection remembers to size a broker's hold. */
    BrokerHolds holds();

    Future<Reply> produce(Call<ProduceRequestData> call);

    /** The Produce as the client's bytes, when one broker it may go to whole leads every partition; else empty. */
    Optional<Future<Reply>> produceAsBytes(ConnectionContext context, RequestFrame request);

    Future<Reply> fetch(Call<FetchRequestData> call);

    Future<Reply> shareFetch(Call<ShareFetchRequestData> call);

    Future<Reply> shareAcknowledge(Call<ShareAcknowledgeRequestData> call);

    /** Split by partition owner through the partition engine, and merged. */
    <Q extends ApiMessage, E, R extends ApiMessage, P> Future<Reply> byPartition(Call<Q> call, PartitionApi<Q, E, R, P> api);

    /** To the coordinator of this group, held as long as the call's hold says. */
    Future<Reply> toGroupCoordinator(Call<?> call, String group);

    /** To the coordinator of this transactional id. */
    Future<Reply> toTransactionCoordinator(Call<?> call, String transactionalId);

    /** Split per coordinator of the keys the request names, merged in request order. */
    <Q extends ApiMessage, R extends ApiMessage, G> Future<Reply> byCoordinator(Call<Q> call, KeyedApi<Q, R, G> api);

    /** The admin APIs whose resources or answers are a broker's own. */
    AdminApis admin();

    /** Whole to the broker the connection's port stands for; empty on a connection that addresses none. */
    Optional<Future<Reply>> toAddressedBroker(ConnectionContext context, RequestFrame request);

    /** Whole to a live broker, round robin. */
    Future<Reply> toAnyBroker(ConnectionContext context, RequestFrame request);
}
