package org.kafscale.proxy.fetch.produce;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.requests.ProduceRequest;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.routing.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.fetch.routing.Answer;
import org.kafscale.proxy.fetch.routing.BackendForwarder;
import org.kafscale.proxy.fetch.routing.LeaderHints;
import org.kafscale.proxy.fetch.routing.OwnerGroups;
import org.kafscale.proxy.fetch.routing.PartitionRef;
import org.kafscale.proxy.fetch.routing.RetryPolicy;
import org.kafscale.proxy.fetch.routing.StaleRoutes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Produce split by partition owner: each broker gets its partitions (records are slices of the
 * client's frame, not copies), the parts go out concurrently, and the answers merge into one
 * answer at the client's version.
 *
 * <p>When one broker owns everything, the client's own bytes go out and, unless something needs
 * retrying, the broker's answer comes back unchanged. Leader-class partitions are retried on
 * their new owner and connection failures on a fresh channel, within {@link RetryPolicy}, for
 * batches without a producer id. Batches with one (idempotent and transactional producers) get a
 * single attempt and every error goes back to the client at once: the producer numbers its batches
 * per partition, and a retry here could be overtaken by its next pipelined request for the same
 * partition (OUT_OF_ORDER_SEQUENCE_NUMBER). The client's own retry keeps the order, and the
 * broker drops duplicates.
 * Partition results the proxy makes up carry Kafka's defaults (-1 offsets), never 0.
 *
 * <p>A {@link ProduceRewriter} (the LFS rewrite) sees each Produce first. When it changed records,
 * every part is re-encoded from the rewritten records (also with acks=0), the partitions it refused
 * are answered with its error and never sent, and it hears how every sent partition ended.
 */
public final class ProduceFanOut {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProduceFanOut.class);

    private final Topology topology;
    private final BackendForwarder forwarder;
    private final LeaderHints hints;
    private final RoutingObserver observer;
    private final ProduceRewriter rewriter;

    /**
     * @param rewriter consulted before each Produce is split; {@link ProduceRewriter#NONE} for none
     */
    public ProduceFanOut(Topology topology, BackendForwarder forwarder, LeaderHints hints, RoutingObserver observer,
                         ProduceRewriter rewriter) {
        this.observer = observer;
        this.rewriter = rewriter;
        this.topology = topology;
        this.forwarder = forwarder;
        this.hints = hints;
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, ProduceRequest produce) {
        Exchange exchange = new Exchange(context, request, produce.data());
        Future<ProduceRewriter.Outcome> rewrite = rewriter.rewrite(context, exchange.pending);
        if (rewrite == null) {
            return exchange.start();
        }
        // The rewritten records replace the client's, so every part is re-encoded from here on.
        Promise<Reply> reply = context.newReply();
        rewrite.addListener(f -> {
            if (!f.isSuccess()) {
                reply.tryFailure(f.cause());
                return;
            }
            @SuppressWarnings("unchecked")
            ProduceRewriter.Outcome outcome = (ProduceRewriter.Outcome) f.getNow();
            exchange.rewritten(outcome);
            exchange.start().addListener(r -> {
                exchange.settle(outcome, r.isSuccess());
                if (r.isSuccess()) {
                    reply.trySuccess((Reply) r.getNow());
                } else {
                    reply.tryFailure(r.cause());
                }
            });
        });
        return reply;
    }

    /** The state of one client Produce across its rounds; lives on the connection's event loop. */
    private final class Exchange {
        private final ConnectionContext context;
        private final RequestFrame request;
        private final ProduceRequestData data;
        private final Promise<Reply> reply;
        private final Map<PartitionRef, PartitionProduceData> pending = new LinkedHashMap<>();
        private final Map<PartitionRef, PartitionProduceResponse> results = new HashMap<>();
        private final Map<PartitionRef, Set<Integer>> refusedBy = new HashMap<>();
        private final Map<PartitionRef, Errors> lastError = new HashMap<>();
        /** acks=0 partitions without an owner, dropped unsent. */
        private final Set<PartitionRef> dropped = new HashSet<>();
        /** acks=0: each part written, by its partitions. */
        private final Map<List<PartitionRef>, Future<Void>> writes = new LinkedHashMap<>();
        /** The last new-leader hint a broker gave per partition, passed on if the partition fails. */
        private final Map<PartitionRef, ProduceResponseData.LeaderIdAndEpoch> leaderHints = new HashMap<>();
        private final boolean idempotent;
        private boolean rewritten;
        private int throttleMillis;

        Exchange(ConnectionContext context, RequestFrame request, ProduceRequestData data) {
            this.context = context;
            this.request = request;
            this.data = data;
            this.reply = context.newReply();
            TopologySnapshot snapshot = topology.snapshot();
            boolean allIdempotent = true;
            for (TopicProduceData topic : data.topicData()) {
                for (PartitionProduceData p : topic.partitionData()) {
                    pending.put(PartitionRef.of(topic.name(), topic.topicId(), p.index(), snapshot), p);
                    allIdempotent &= hasProducerId(p);
                }
            }
            this.idempotent = allIdempotent;
        }

        Future<Reply> start() {
            if (data.acks() == 0) {
                return fireAndForget();
            }
            round(1);
            return reply;
        }

        /** The records were rewritten: refused partitions are answered now and never sent. */
        void rewritten(ProduceRewriter.Outcome outcome) {
            rewritten = true;
            outcome.refused().forEach((ref, error) -> {
                if (pending.remove(ref) != null) {
                    results.put(ref, synthetic(ref, error));
                }
            });
        }

        /**
         * Tells the rewriter how the sent partitions ended: their results or, with acks=0, whether
         * their part was written to an owner (no answer comes, as for any acks=0 Produce).
         */
        void settle(ProduceRewriter.Outcome outcome, boolean answered) {
            if (!answered) {
                outcome.settled(Map.of());
                return;
            }
            if (data.acks() != 0) {
                Map<PartitionRef, Errors> sent = new HashMap<>();
                results.forEach((ref, r) -> {
                    if (!outcome.refused().containsKey(ref)) {
                        sent.put(ref, Errors.forCode(r.errorCode()));
                    }
                });
                outcome.settled(sent);
                return;
            }
            Map<PartitionRef, Errors> sent = new HashMap<>();
            dropped.forEach(ref -> sent.put(ref, Errors.LEADER_NOT_AVAILABLE));
            int[] outstanding = {writes.size()};
            if (outstanding[0] == 0) {
                outcome.settled(sent);
            }
            writes.forEach((parts, written) -> written.addListener(w -> {
                parts.forEach(ref -> sent.put(ref, w.isSuccess() ? Errors.NONE : Errors.NETWORK_EXCEPTION));
                if (--outstanding[0] == 0) {
                    outcome.settled(sent);
                }
            }));
        }

        /** acks=0: every part is written and nothing is awaited; the client expects no answer. */
        Future<Reply> fireAndForget() {
            Map<Integer, List<PartitionRef>> byOwner = OwnerGroups.of(pending.keySet(), topology.snapshot(), refusedBy);
            TopologySnapshot snapshot = topology.snapshot();
            for (Map.Entry<Integer, List<PartitionRef>> group : byOwner.entrySet()) {
                if (group.getKey() == OwnerGroups.NO_OWNER) {
                    dropped.addAll(group.getValue());
                    LOGGER.debug("acks=0 Produce from {}: no owner for {}; dropped as a broker would", context.clientAddress(),
                            group.getValue());
                    continue;
                }
                BrokerEndpoint broker = snapshot.broker(group.getKey()).orElseThrow();
                writes.put(group.getValue(), forwarder.send(context, broker,
                        frameFor(group.getValue(), byOwner.size() == 1 && !rewritten)));
            }
            return Replies.now(context.loop(), Reply.NONE);
        }

        void round(int attempt) {
            TopologySnapshot snapshot = topology.snapshot();
            Map<Integer, List<PartitionRef>> byOwner = OwnerGroups.of(pending.keySet(), snapshot, refusedBy);
            List<PartitionRef> unroutable = byOwner.remove(OwnerGroups.NO_OWNER);
            if (unroutable != null) {
                unroutable.forEach(ref -> lastError.putIfAbsent(ref, OwnerGroups.whyNoOwner(ref, snapshot)));
            }
            if (byOwner.isEmpty()) {
                finishOrRetry(attempt);
                return;
            }
            boolean passThrough = attempt == 1 && byOwner.size() == 1 && unroutable == null && !rewritten;
            if (attempt == 1) {
                observer.fannedOut(ApiKeys.PRODUCE, byOwner.size());
            }
            int[] outstanding = {byOwner.size()};
            for (Map.Entry<Integer, List<PartitionRef>> group : byOwner.entrySet()) {
                BrokerEndpoint broker = snapshot.broker(group.getKey()).orElseThrow();
                List<PartitionRef> parts = group.getValue();
                forwarder.exchange(context, broker, frameFor(parts, passThrough), 0, false, ApiKeys.PRODUCE,
                        request.apiVersion(), body -> new ProduceResponseData(body, request.apiVersion())).addListener(f -> {
                    if (f.isSuccess()) {
                        @SuppressWarnings("unchecked")
                        Answer<ProduceResponseData> answer = (Answer<ProduceResponseData>) f.getNow();
                        absorb(broker, parts, answer.body());
                        if (passThrough && pending.isEmpty()) {
                            // One broker, nothing to retry: its answer goes back unchanged.
                            reply.trySuccess(Reply.send(answer.frame()));
                            return;
                        }
                        answer.frame().release();
                    } else {
                        onFailure(broker, parts, f.cause());
                    }
                    if (--outstanding[0] == 0) {
                        finishOrRetry(attempt);
                    }
                });
            }
        }

        /** Records a broker's answer for its partitions; leader-class ones stay pending for a retry. */
        private void absorb(BrokerEndpoint broker, List<PartitionRef> parts, ProduceResponseData response) {
            throttleMillis = Math.max(throttleMillis, response.throttleTimeMs());
            Map<String, PartitionRef> byKey = new HashMap<>();
            parts.forEach(ref -> byKey.put(ref.answerKey(), ref));
            for (TopicProduceResponse topic : response.responses()) {
                for (PartitionProduceResponse p : topic.partitionResponses()) {
                    PartitionRef ref = byKey.get(PartitionRef.answerKey(topic.name(), topic.topicId(), p.index()));
                    if (ref == null) {
                        continue;
                    }
                    if (RetryPolicy.isLeaderClass(p.errorCode())) {
                        StaleRoutes.drop(topology, broker, ref, p.errorCode());
                        if (!idempotent) {
                            observer.retried(ApiKeys.PRODUCE, RoutingObserver.RetryCause.LEADER);
                        }
                        if (p.currentLeader().leaderId() >= 0) {
                            leaderHints.put(ref, p.currentLeader());
                        }
                        refusedBy.computeIfAbsent(ref, r -> new HashSet<>()).add(broker.id());
                        lastError.put(ref, Errors.forCode(p.errorCode()));
                    } else {
                        results.put(ref, p.setCurrentLeader(new PartitionProduceResponse().currentLeader()));
                        pending.remove(ref);
                    }
                }
            }
        }

        private void onFailure(BrokerEndpoint broker, List<PartitionRef> parts, Throwable cause) {
            boolean resend = !idempotent && RetryPolicy.mayResend(cause, true);
            if (!RetryPolicy.cancelled(cause)) {
                LOGGER.warn("Produce part for {} partitions failed at {}: {}{}", parts.size(), broker, cause.getMessage(),
                        resend ? "; retrying on a fresh channel" : "");
            }
            Errors error = idempotent ? Errors.NETWORK_EXCEPTION : Errors.REQUEST_TIMED_OUT;
            if (resend) {
                observer.retried(ApiKeys.PRODUCE, RoutingObserver.RetryCause.CONNECTION);
            }
            for (PartitionRef ref : parts) {
                if (resend) {
                    lastError.put(ref, error);
                } else {
                    results.put(ref, synthetic(ref, error));
                    pending.remove(ref);
                }
            }
        }

        /**
         * Batches that carry a producer id are numbered per partition by the client, which may have
         * its next request for the same partition already in flight. Holding or re-sending one here
         * would let that next batch overtake it (OUT_OF_ORDER_SEQUENCE_NUMBER, seen in tests after a
         * leader change), so such a request gets one attempt and the client resends in order.
         */
        private int maxAttempts() {
            return idempotent ? 1 : RetryPolicy.MAX_ATTEMPTS;
        }

        private void finishOrRetry(int attempt) {
            if (pending.isEmpty() || attempt >= maxAttempts()) {
                pending.keySet().forEach(ref -> results.put(ref, withHint(ref, synthetic(ref,
                        lastError.getOrDefault(ref, Errors.NOT_LEADER_OR_FOLLOWER)))));
                pending.clear();
                reply.trySuccess(Reply.send(ResponseFrames.encode(ApiKeys.PRODUCE, request.apiVersion(),
                        request.correlationId(), merged())));
                return;
            }
            context.loop().schedule(() -> round(attempt + 1), RetryPolicy.backoffMillis(attempt + 1), TimeUnit.MILLISECONDS);
        }

        /** The client's bytes when they fit as they are, else a Produce with only {@code parts}. */
        private ByteBuf frameFor(List<PartitionRef> parts, boolean wholeRequest) {
            if (wholeRequest) {
                return request.frame().retainedDuplicate();
            }
            ProduceRequestData sub = new ProduceRequestData().setAcks(data.acks()).setTimeoutMs(data.timeoutMs())
                    .setTransactionalId(data.transactionalId());
            Map<PartitionRef.TopicRef, TopicProduceData> topics = new LinkedHashMap<>();
            for (PartitionRef ref : parts) {
                topics.computeIfAbsent(ref.topic(), t -> new TopicProduceData().setName(t.name() == null ? "" : t.name())
                        .setTopicId(t.topicId() == null ? org.apache.kafka.common.Uuid.ZERO_UUID : t.topicId()))
                        .partitionData().add(pending.get(ref));
            }
            topics.values().forEach(sub.topicData()::add);
            return RequestFrames.reencode(request, sub);
        }

        /** A failed partition carries the broker's new-leader hint, as the client must see it. */
        private PartitionProduceResponse withHint(PartitionRef ref, PartitionProduceResponse result) {
            ProduceResponseData.LeaderIdAndEpoch hint = leaderHints.get(ref);
            return hint == null || !hints.producePassesHints(request.apiVersion()) ? result
                    : result.setCurrentLeader(hints.forClient(hint));
        }

        /** The merged answer: every requested partition, in request order, and endpoints for any leader hint. */
        private ProduceResponseData merged() {
            ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(throttleMillis);
            Set<Integer> hintedLeaders = new HashSet<>();
            results.values().forEach(r -> {
                if (r.currentLeader().leaderId() >= 0) {
                    hintedLeaders.add(r.currentLeader().leaderId());
                }
            });
            hints.addEndpoints(response, hintedLeaders);
            TopologySnapshot snapshot = topology.snapshot();
            for (TopicProduceData topic : data.topicData()) {
                TopicProduceResponse out = new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
                for (PartitionProduceData p : topic.partitionData()) {
                    PartitionRef ref = PartitionRef.of(topic.name(), topic.topicId(), p.index(), snapshot);
                    PartitionProduceResponse result = results.get(ref);
                    out.partitionResponses().add(result != null ? result : synthetic(ref, Errors.REQUEST_TIMED_OUT));
                }
                response.responses().add(out);
            }
            return response;
        }
    }

    /** A partition result the proxy makes up: the error and Kafka's defaults (-1), never 0. */
    static PartitionProduceResponse synthetic(PartitionRef ref, Errors error) {
        return new PartitionProduceResponse().setIndex(ref.partition()).setErrorCode(error.code())
                .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
    }

    private static boolean hasProducerId(PartitionProduceData p) {
        if (!(p.records() instanceof MemoryRecords records)) {
            return false;
        }
        for (MutableRecordBatch batch : records.batches()) {
            if (!batch.hasProducerId()) {
                return false;
            }
        }
        return true;
    }
}
