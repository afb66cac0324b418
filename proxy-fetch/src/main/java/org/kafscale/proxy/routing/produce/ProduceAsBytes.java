package org.kafscale.proxy.routing.produce;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.backend.Answer;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.Guard;
import org.kafscale.proxy.routing.engine.OwnerGroups;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * A Produce that one broker leads wholly, forwarded as the client's bytes without decoding it: only
 * the correlation id changes on the way (the channel's), and the answer goes back as the broker
 * sent it. This is the common case in ports and brokers modes, where clients see the real leaders
 * and send each broker its own partitions; it spares the decode of every Produce and the exchange
 * around it ({@link ProduceOutline} says what is read instead).
 *
 * <p>Taken only when every partition is led, in the snapshot now, by the broker the connection
 * addresses (ports mode: the broker of the port) or, in brokers mode where a connection addresses
 * none, by one broker; with acks other than 0 (acks=0 keeps its own path, which awaits nothing);
 * and only on a Produce no policy has read (the route declines a decoded body before asking here)
 * when no {@link org.kafscale.proxy.core.hooks.ProduceRewriter} is set ({@link ProduceRoute} asks
 * only then). In single mode clients send every partition to node 0, so a Produce rarely has one
 * leader and the read would be spent for nothing: it is never tried. Anything else is decoded.
 *
 * <p>The answer is always decoded (it is small: a result per partition, no records), since what
 * the engine does next depends on it: an answer that settles every partition as it stands ({@link
 * ProduceApi#settlesAsSent}) goes back unchanged, exactly when the engine would pass it through.
 * Any other (a partition refused with NOT_LEADER_OR_FOLLOWER or another leader-class error, a
 * partition left out, KIP-951 node endpoints to rewrite to the proxy's address) or a failed
 * exchange is handed to the engine as the first attempt of a decoded exchange ({@link
 * PartitionExchange#resume}), which retries, drops stale routes and rewrites hints as if it had
 * sent the request itself. So the semantics are those of the decoded path: batches with a producer
 * id (idempotent, transactional) are still sent once and every error goes back to the client;
 * others are retried on the next leader, a failed part only when it was never written.
 */
final class ProduceAsBytes {
    private final RoutingServices services;
    private final AdvertiseMode mode;

    ProduceAsBytes(RoutingServices services, AdvertiseMode mode) {
        this.services = services;
        this.mode = mode;
    }

    Optional<Future<Reply>> route(ConnectionContext context, RequestFrame request) {
        if (mode == AdvertiseMode.SINGLE) {
            return Optional.empty();
        }
        TopologySnapshot snapshot = services.topology().snapshot();
        ProduceOutline outline = ProduceOutline.read(request, snapshot);
        if (outline == null || outline.acks() == 0) {
            return Optional.empty();
        }
        Optional<BrokerEndpoint> leader = leader(outline.partitions(), context.addressedBroker(), snapshot);
        if (leader.isEmpty()) {
            return Optional.empty();
        }
        services.observer().fannedOut(ApiKeys.PRODUCE, 1);
        Promise<Reply> reply = context.newReply();
        short version = request.apiVersion();
        Future<Answer<ProduceResponseData>> answer = services.forwarder().exchange(context, leader.get(),
                request.frame().retainedDuplicate(), 0, false, ApiKeys.PRODUCE, version,
                body -> new ProduceResponseData(body, version));
        answer.addListener(f -> Guard.run(reply, context, request,
                () -> answered(context, request, outline, leader.get(), answer, reply)));
        return Optional.of(reply);
    }

    /**
     * The broker that leads every partition and may take the request whole: the connection's own
     * broker when it addresses one (ports and sni modes), else the one leader of all (brokers mode; on the
     * ports- or sni-mode bootstrap, none).
     */
    private Optional<BrokerEndpoint> leader(List<PartitionRef> partitions, OptionalInt addressed,
                                            TopologySnapshot snapshot) {
        if (partitions.isEmpty() || (mode.addressPerBroker() && addressed.isEmpty())) {
            return Optional.empty();
        }
        int leader = addressed.orElse(OwnerGroups.NO_OWNER);
        for (PartitionRef ref : partitions) {
            int owner = owner(ref, snapshot);
            if (owner == OwnerGroups.NO_OWNER || (leader != OwnerGroups.NO_OWNER && owner != leader)) {
                return Optional.empty();
            }
            leader = owner;
        }
        return snapshot.broker(leader);
    }

    private void answered(ConnectionContext context, RequestFrame request, ProduceOutline outline,
                          BrokerEndpoint leader, Future<Answer<ProduceResponseData>> answer, Promise<Reply> reply) {
        if (reply.isDone()) { // answered already (the connection's deadline, or it closed)
            if (answer.isSuccess()) {
                answer.getNow().frame().release();
            }
            return;
        }
        if (answer.isSuccess() && ProduceApi.settlesAsSent(answer.getNow().body(), outline.partitions())) {
            Replies.settle(reply, Reply.send(answer.getNow().frame()));
            return;
        }
        ProduceRequestData data;
        try {
            data = request.decodeBody(ProduceRequestData.class);
        } catch (RuntimeException e) {
            // The broker took what its outline read; the body itself does not parse: close, as a broker would.
            if (answer.isSuccess()) {
                answer.getNow().frame().release();
            }
            Replies.settle(reply, new Reply.Close(request.describe() + " body does not parse: " + e));
            return;
        }
        ProduceApi api = new ProduceApi(data, request.apiVersion(), services.hints());
        new PartitionExchange<>(services, context, request, data, api).resume(leader, answer)
                .addListener(r -> Replies.settle(reply, r.isSuccess() ? (Reply) r.getNow()
                        : new Reply.Close("routing " + request.describe() + " failed: " + r.cause())));
    }

    private static int owner(PartitionRef ref, TopologySnapshot snapshot) {
        return ref.routingName() == null ? OwnerGroups.NO_OWNER
                : snapshot.owner(ref.routingName(), ref.partition()).orElse(OwnerGroups.NO_OWNER);
    }
}
