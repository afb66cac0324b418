package org.kafscale.proxy.routing.produce;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.OwnerGroups;
import org.kafscale.proxy.routing.engine.PartitionExchange;
import org.kafscale.proxy.routing.engine.RoutingServices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Produce: one broker leads wholly goes as the client's bytes, undecoded ({@link ProduceAsBytes});
 * with acks=0, every part is written and nothing is awaited (Kafka defines no answer); otherwise
 * the partition engine splits, retries ({@link ProduceApi} says what may be) and merges.
 *
 * <p>A {@link ProduceRewriter} (the LFS rewrite) sees each Produce first. When it changed records,
 * every part is re-encoded from the rewritten records (also with acks=0), the partitions it refused
 * are answered with its error and never sent, and it hears how every sent partition ended.
 */
public final class ProduceRoute {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProduceRoute.class);

    private final RoutingServices services;
    private final ProduceRewriter rewriter;
    private final ProduceAsBytes asBytes;

    /**
     * @param rewriter consulted before each Produce is split; {@link ProduceRewriter#NONE} for none
     * @param mode how clients see the cluster: whether a Produce led by one broker may go as bytes
     */
    public ProduceRoute(RoutingServices services, ProduceRewriter rewriter, AdvertiseMode mode) {
        this.services = services;
        this.rewriter = rewriter;
        this.asBytes = new ProduceAsBytes(services, mode);
    }

    /**
     * The Produce forwarded undecoded ({@link ProduceAsBytes}) when one broker may take it whole;
     * empty when it must be decoded, always with a rewriter, which reads every Produce's records.
     */
    public Optional<Future<Reply>> asBytes(ConnectionContext context, RequestFrame request) {
        return rewriter == ProduceRewriter.NONE ? asBytes.route(context, request) : Optional.empty();
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, ProduceRequestData data) {
        ProduceApi api = new ProduceApi(data, request.apiVersion(), services.hints());
        PartitionExchange<ProduceRequestData, PartitionProduceData, ProduceResponseData, PartitionProduceResponse> exchange =
                new PartitionExchange<>(services, context, request, data, api);
        if (rewriter != ProduceRewriter.NONE) {
            api.idempotent(); // from the client's records, before a rewrite replaces them
        }
        Future<ProduceRewriter.Outcome> rewrite = rewriter.rewrite(context, exchange.partitions());
        if (rewrite == null) {
            return data.acks() == 0 ? fireAndForget(context, request, data, api, exchange.partitions(), null) : exchange.start();
        }
        Promise<Reply> reply = context.newReply();
        rewrite.addListener(f -> {
            if (!f.isSuccess()) {
                reply.trySuccess(new Reply.Close("rewriting " + request.describe() + " failed: " + f.cause()));
                return;
            }
            ProduceRewriter.Outcome outcome = rewrite.getNow();
            try {
                // The rewritten records replace the client's, so every part is re-encoded from here on.
                exchange.disallowPassThrough();
                outcome.refused().forEach(exchange::settleUnsent);
                if (data.acks() == 0) {
                    reply.trySuccess(fireAndForget(context, request, data, api, exchange.partitions(), outcome).getNow());
                    return;
                }
                exchange.start().addListener(r -> {
                    outcome.settled(r.isSuccess() ? sentResults(exchange.results(), outcome) : Map.of());
                    reply.trySuccess(r.isSuccess() ? (Reply) r.getNow() : new Reply.Close(String.valueOf(r.cause())));
                });
            } catch (RuntimeException e) {
                reply.trySuccess(new Reply.Close("routing rewritten " + request.describe() + " failed: " + e));
            }
        });
        return reply;
    }

    /** How each partition the rewriter let through ended. */
    private static Map<PartitionRef, Errors> sentResults(Map<PartitionRef, PartitionProduceResponse> results,
                                                         ProduceRewriter.Outcome outcome) {
        Map<PartitionRef, Errors> sent = new HashMap<>();
        results.forEach((ref, r) -> {
            if (!outcome.refused().containsKey(ref)) {
                sent.put(ref, Errors.forCode(r.errorCode()));
            }
        });
        return sent;
    }

    /**
     * acks=0: every part is written to its owner and nothing is awaited; the client expects no
     * answer. Partitions with no owner are dropped unsent, as a broker drops what it cannot take.
     * A rewriter hears whether each part was written.
     */
    private Future<Reply> fireAndForget(ConnectionContext context, RequestFrame request, ProduceRequestData data,
                                        ProduceApi api, Map<PartitionRef, PartitionProduceData> partitions,
                                        ProduceRewriter.Outcome outcome) {
        TopologySnapshot snapshot = services.topology().snapshot();
        Map<PartitionRef, PartitionProduceData> unsent = new LinkedHashMap<>(partitions);
        if (outcome != null) {
            outcome.refused().keySet().forEach(unsent::remove);
        }
        Map<Integer, List<PartitionRef>> byOwner = OwnerGroups.of(unsent.keySet(), snapshot, OwnerGroups.Refusals.NONE);
        boolean wholeRequest = byOwner.size() == 1 && outcome == null && !byOwner.containsKey(OwnerGroups.NO_OWNER);
        Map<PartitionRef, Errors> sent = new HashMap<>();
        int[] outstanding = {byOwner.size()};
        for (Map.Entry<Integer, List<PartitionRef>> group : byOwner.entrySet()) {
            List<PartitionRef> parts = group.getValue();
            if (group.getKey() == OwnerGroups.NO_OWNER) {
                context.atDebug(LOGGER).log("acks=0 Produce from {}: no owner for {}; dropped as a broker would",
                        context.clientAddress(), parts);
                parts.forEach(ref -> sent.put(ref, Errors.LEADER_NOT_AVAILABLE));
                outstanding[0]--;
                continue;
            }
            services.forwarder().send(context, snapshot.broker(group.getKey()).orElseThrow(), wholeRequest
                    ? request.frame().retainedDuplicate()
                    : RequestFrames.reencode(request, api.subRequest(data, parts, unsent))).addListener(w -> {
                parts.forEach(ref -> sent.put(ref, w.isSuccess() ? Errors.NONE : Errors.NETWORK_EXCEPTION));
                if (--outstanding[0] == 0 && outcome != null) {
                    outcome.settled(sent);
                }
            });
        }
        if (outstanding[0] == 0 && outcome != null) {
            outcome.settled(sent);
        }
        return Replies.now(context.loop(), Reply.NONE);
    }
}
