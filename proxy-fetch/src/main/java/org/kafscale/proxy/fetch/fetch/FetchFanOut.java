package org.kafscale.proxy.fetch.fetch;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchMetadata;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.routing.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionContext;
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
 * A Fetch split by partition owner, each part on an idle channel to its broker, merged into one
 * answer whose record sets are slices of the brokers' answer frames (never copies).
 *
 * <p>No waiting on the slowest broker: once one part comes back with records, the client gets
 * them after at most {@link #DATA_LINGER_MICROS} more for parts that may still bring data (sent
 * less than {@link #LONG_POLL_AFTER_MICROS} ago); partitions still waiting on other brokers are
 * answered empty (no error, offsets -1,
 * which clients ignore). Parts still long-polling are parked ({@link ParkedPolls}) and adopted by
 * the connection's next Fetch that asks the same broker for the same partitions at the same
 * offsets, so an idle broker never has more than one poll of a connection queued. Whatever
 * happens, the client is answered within its max wait plus {@link #DEADLINE_MARGIN_MILLIS}.
 *
 * <p>Every part is a sessionless full fetch (session id 0, epoch -1): a session pinned to one
 * broker could not survive partitions moving. When one broker owns everything and nothing needs
 * retrying, the broker's answer goes back unchanged. Leader-class partitions are retried on
 * their new owner and connection failures on a fresh channel, within {@link RetryPolicy}.
 */
public final class FetchFanOut {
    private static final Logger LOGGER = LoggerFactory.getLogger(FetchFanOut.class);
    /** How long parts still in flight may join an answer once another part brought records. */
    private static final long DATA_LINGER_MICROS = 2_000;
    /**
     * A part older than this is long-polling a broker that had no data when it was sent (a broker
     * with data answers within a millisecond or two, more under load), so lingering for it would
     * only add latency: parked polls adopted from an earlier Fetch always are.
     */
    private static final long LONG_POLL_AFTER_MICROS = 5_000;
    /** How far past the client's max wait the proxy may take before answering with what it has. */
    private static final long DEADLINE_MARGIN_MILLIS = 100;

    private final Topology topology;
    private final BackendForwarder forwarder;
    private final LeaderHints hints;
    private final RoutingObserver observer;

    public FetchFanOut(Topology topology, BackendForwarder forwarder, LeaderHints hints, RoutingObserver observer) {
        this.observer = observer;
        this.topology = topology;
        this.forwarder = forwarder;
        this.hints = hints;
    }

    public Future<Reply> handle(ConnectionContext context, RequestFrame request, FetchRequestData data) {
        Exchange exchange = new Exchange(context, request, data);
        exchange.send(exchange.pending, true);
        return exchange.reply;
    }

    private final class Exchange {
        private final ConnectionContext context;
        private final RequestFrame request;
        private final FetchRequestData data;
        private final Promise<Reply> reply;
        private final Map<PartitionRef, FetchPartition> partitions = new LinkedHashMap<>();
        private final List<PartitionRef> pending = new ArrayList<>();
        private final Map<PartitionRef, PartitionData> results = new HashMap<>();
        private final Map<PartitionRef, Integer> attempts = new HashMap<>();
        private final Map<PartitionRef, Set<Integer>> refusedBy = new HashMap<>();
        /** The last new-leader hint a broker gave per partition, passed on if the partition fails. */
        private final Map<PartitionRef, FetchResponseData.LeaderIdAndEpoch> leaderHints = new HashMap<>();
        /** Answer frames whose record sets the merged answer may slice; released once it is written. */
        private final List<ByteBuf> answers = new ArrayList<>();
        /** Parts sent (or adopted) whose answers this exchange still waits for. */
        private final List<InFlight> inFlight = new ArrayList<>();
        private int throttleMillis;
        private boolean anyRecords;
        private boolean lingering;

        Exchange(ConnectionContext context, RequestFrame request, FetchRequestData data) {
            this.context = context;
            this.request = request;
            this.data = data;
            this.reply = context.newReply();
            TopologySnapshot snapshot = topology.snapshot();
            for (FetchTopic topic : data.topics()) {
                for (FetchPartition p : topic.partitions()) {
                    PartitionRef ref = PartitionRef.of(topic.topic(), topic.topicId(), p.partition(), snapshot);
                    partitions.put(ref, p);
                    pending.add(ref);
                }
            }
            // However the parts go, the client hears back within its own max wait (plus a margin).
            ScheduledFuture<?> deadline = context.loop().schedule(this::answerNow,
                    Math.max(0, data.maxWaitMs()) + DEADLINE_MARGIN_MILLIS, TimeUnit.MILLISECONDS);
            reply.addListener(f -> {
                deadline.cancel(false);
                releaseAnswers();
            });
        }

        /** Sends one part per owner; partitions without a usable owner are answered with an error. */
        void send(List<PartitionRef> refs, boolean firstRound) {
            TopologySnapshot snapshot = topology.snapshot();
            Map<Integer, List<PartitionRef>> byOwner = OwnerGroups.of(refs, snapshot, refusedBy);
            List<PartitionRef> unroutable = byOwner.remove(OwnerGroups.NO_OWNER);
            if (unroutable != null) {
                unroutable.forEach(ref -> settle(ref, errorPartition(ref, OwnerGroups.whyNoOwner(ref, snapshot))));
            }
            boolean passThrough = firstRound && unroutable == null && byOwner.size() == 1;
            if (firstRound) {
                observer.fannedOut(ApiKeys.FETCH, byOwner.size());
            }
            ParkedPolls parked = context.state(ParkedPolls.class, ParkedPolls::new);
            for (Map.Entry<Integer, List<PartitionRef>> group : byOwner.entrySet()) {
                BrokerEndpoint broker = snapshot.broker(group.getKey()).orElseThrow();
                List<PartitionRef> parts = group.getValue();
                parts.forEach(ref -> attempts.merge(ref, 1, Integer::sum));
                Map<PartitionRef, Long> offsets = new HashMap<>();
                parts.forEach(ref -> offsets.put(ref, partitions.get(ref).fetchOffset()));
                Optional<Future<Answer<FetchResponseData>>> adopted = parked.adopt(broker.id(), offsets);
                Future<Answer<FetchResponseData>> answer = adopted.orElseGet(() ->
                        forwarder.exchange(context, broker, frameFor(parts, passThrough), Math.max(0, data.maxWaitMs()), true,
                                ApiKeys.FETCH, request.apiVersion(), body -> new FetchResponseData(body, request.apiVersion())));
                InFlight part = new InFlight(broker.id(), offsets, answer, adopted.isPresent());
                inFlight.add(part);
                answer.addListener(f -> {
                    inFlight.remove(part);
                    if (part.parked) {
                        return;
                    }
                    if (reply.isDone()) {
                        if (f.isSuccess()) {
                            answer.getNow().frame().release();
                        }
                        return;
                    }
                    if (f.isSuccess()) {
                        onAnswer(broker, parts, answer.getNow(), passThrough);
                    } else {
                        onFailure(broker, parts, f.cause());
                    }
                    maybeAnswer();
                });
            }
            maybeAnswer();
        }

        private void onAnswer(BrokerEndpoint broker, List<PartitionRef> parts, Answer<FetchResponseData> answer,
                              boolean passThrough) {
            FetchResponseData response = answer.body();
            if (passThrough && response.errorCode() == Errors.NONE.code() && noLeaderErrors(response)) {
                reply.trySuccess(Reply.send(answer.frame()));
                return;
            }
            answers.add(answer.frame());
            throttleMillis = Math.max(throttleMillis, response.throttleTimeMs());
            Map<String, PartitionRef> byKey = new HashMap<>();
            parts.forEach(ref -> byKey.put(ref.answerKey(), ref));
            List<PartitionRef> retry = new ArrayList<>();
            for (FetchableTopicResponse topic : response.responses()) {
                for (PartitionData p : topic.partitions()) {
                    PartitionRef ref = byKey.remove(PartitionRef.answerKey(topic.topic(), topic.topicId(), p.partitionIndex()));
                    if (ref == null) {
                        continue;
                    }
                    short error = p.errorCode() != Errors.NONE.code() ? p.errorCode() : response.errorCode();
                    if (RetryPolicy.isLeaderClass(error)) {
                        refusedBy.computeIfAbsent(ref, r -> new HashSet<>()).add(broker.id());
                        StaleRoutes.drop(topology, broker, ref, error);
                        observer.retried(ApiKeys.FETCH, RoutingObserver.RetryCause.LEADER);
                        if (p.currentLeader().leaderId() >= 0) {
                            leaderHints.put(ref, p.currentLeader());
                        }
                        retry.add(ref);
                        continue;
                    }
                    p.setErrorCode(error).setCurrentLeader(new PartitionData().currentLeader());
                    settle(ref, p);
                    anyRecords |= p.records() != null && p.records().sizeInBytes() > 0;
                }
            }
            // Partitions the broker left out of its answer are asked again.
            retry.addAll(byKey.values());
            retryOrFail(retry, Errors.NOT_LEADER_OR_FOLLOWER);
        }

        private void onFailure(BrokerEndpoint broker, List<PartitionRef> parts, Throwable cause) {
            boolean resend = RetryPolicy.mayResend(cause, false);
            if (!RetryPolicy.cancelled(cause)) {
                LOGGER.warn("Fetch part for {} partitions failed at {}: {}{}", parts.size(), broker, cause.getMessage(),
                        resend ? "; retrying on a fresh channel" : "");
            }
            if (resend) {
                observer.retried(ApiKeys.FETCH, RoutingObserver.RetryCause.CONNECTION);
                retryOrFail(parts, Errors.NOT_LEADER_OR_FOLLOWER);
            } else {
                parts.forEach(ref -> settle(ref, errorPartition(ref, Errors.NOT_LEADER_OR_FOLLOWER)));
            }
        }

        private void retryOrFail(List<PartitionRef> refs, Errors exhausted) {
            List<PartitionRef> again = new ArrayList<>();
            for (PartitionRef ref : refs) {
                if (attempts.getOrDefault(ref, 0) < RetryPolicy.MAX_ATTEMPTS) {
                    again.add(ref);
                } else {
                    settle(ref, withHint(ref, errorPartition(ref, exhausted)));
                }
            }
            if (!again.isEmpty()) {
                send(again, false);
            }
        }

        /** A failed partition carries the broker's new-leader hint, as the client must see it. */
        private PartitionData withHint(PartitionRef ref, PartitionData result) {
            FetchResponseData.LeaderIdAndEpoch hint = leaderHints.get(ref);
            return hint == null || !hints.fetchPassesHints(request.apiVersion()) ? result
                    : result.setCurrentLeader(hints.forClient(hint));
        }

        private void settle(PartitionRef ref, PartitionData result) {
            results.put(ref, result);
            pending.remove(ref);
        }

        /**
         * Answers once everything is in, or shortly after some partition has records: brokers that
         * have data answer within a millisecond or two, so a short linger lets their parts join
         * while a broker that is long-polling is not waited for. When every part still out is
         * already long-polling, there is nothing to linger for.
         */
        private void maybeAnswer() {
            if (reply.isDone() || (!inFlight.isEmpty() && !anyRecords)) {
                return;
            }
            if (!mayStillBringData()) {
                answerNow();
                return;
            }
            if (!lingering) {
                lingering = true;
                context.loop().schedule(this::answerNow, DATA_LINGER_MICROS, TimeUnit.MICROSECONDS);
            }
        }

        private boolean mayStillBringData() {
            long now = System.nanoTime();
            for (InFlight part : inFlight) {
                if (!part.adopted && now - part.sentNanos < TimeUnit.MICROSECONDS.toNanos(LONG_POLL_AFTER_MICROS)) {
                    return true;
                }
            }
            return false;
        }

        private void answerNow() {
            if (reply.isDone()) {
                return;
            }
            // Parts still long-polling are parked for the connection's next Fetch to adopt.
            ParkedPolls parked = context.state(ParkedPolls.class, ParkedPolls::new);
            for (InFlight part : List.copyOf(inFlight)) {
                part.parked = true;
                parked.park(part.brokerId, part.offsets, part.answer);
            }
            inFlight.clear();
            FetchResponseData merged = new FetchResponseData().setThrottleTimeMs(throttleMillis)
                    .setErrorCode(Errors.NONE.code()).setSessionId(FetchMetadata.INVALID_SESSION_ID);
            Map<PartitionRef.TopicRef, FetchableTopicResponse> topics = new LinkedHashMap<>();
            for (PartitionRef ref : partitions.keySet()) {
                PartitionData result = results.getOrDefault(ref, errorPartition(ref, Errors.NONE));
                topics.computeIfAbsent(ref.topic(), t -> new FetchableTopicResponse()
                        .setTopic(t.name() == null ? "" : t.name())
                        .setTopicId(t.topicId() == null ? Uuid.ZERO_UUID : t.topicId()))
                        .partitions().add(result);
            }
            merged.responses().addAll(topics.values());
            Set<Integer> hintedLeaders = new HashSet<>();
            results.values().forEach(r -> {
                if (r.currentLeader().leaderId() >= 0) {
                    hintedLeaders.add(r.currentLeader().leaderId());
                }
            });
            hints.addEndpoints(merged, hintedLeaders);
            ByteBuf encoded = ResponseFrames.encode(ApiKeys.FETCH, request.apiVersion(), request.correlationId(), merged,
                    answers);
            if (!reply.trySuccess(Reply.send(encoded))) {
                encoded.release();
            }
        }

        /** The Fetch for {@code parts} as a sessionless full fetch; the client's bytes when they already are one. */
        private ByteBuf frameFor(List<PartitionRef> parts, boolean wholeRequest) {
            boolean sessionless = data.sessionId() == FetchMetadata.INVALID_SESSION_ID
                    && data.sessionEpoch() == FetchMetadata.FINAL_EPOCH;
            if (wholeRequest && sessionless) {
                return request.frame().retainedDuplicate();
            }
            FetchRequestData sub = new FetchRequestData()
                    .setClusterId(data.clusterId()).setReplicaId(data.replicaId()).setReplicaState(data.replicaState())
                    .setMaxWaitMs(data.maxWaitMs()).setMinBytes(data.minBytes()).setMaxBytes(data.maxBytes())
                    .setIsolationLevel(data.isolationLevel()).setRackId(data.rackId())
                    .setSessionId(FetchMetadata.INVALID_SESSION_ID).setSessionEpoch(FetchMetadata.FINAL_EPOCH);
            Map<PartitionRef.TopicRef, FetchTopic> topics = new LinkedHashMap<>();
            for (PartitionRef ref : parts) {
                topics.computeIfAbsent(ref.topic(), t -> new FetchTopic().setTopic(t.name() == null ? "" : t.name())
                        .setTopicId(t.topicId() == null ? Uuid.ZERO_UUID : t.topicId()))
                        .partitions().add(partitions.get(ref));
            }
            sub.topics().addAll(topics.values());
            return RequestFrames.reencode(request, sub);
        }

        private void releaseAnswers() {
            answers.forEach(ByteBuf::release);
            answers.clear();
        }
    }

    private static boolean noLeaderErrors(FetchResponseData response) {
        for (FetchableTopicResponse topic : response.responses()) {
            for (PartitionData p : topic.partitions()) {
                if (RetryPolicy.isLeaderClass(p.errorCode())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** A part of this exchange on one broker: what it asked for and the answer to come. */
    private static final class InFlight {
        final int brokerId;
        final Map<PartitionRef, Long> offsets;
        final Future<Answer<FetchResponseData>> answer;
        boolean parked;

        /** Taken over from an earlier Fetch's parked poll rather than sent by this one. */
        final boolean adopted;
        /** {@link System#nanoTime()} when this exchange took the part on. */
        final long sentNanos = System.nanoTime();

        InFlight(int brokerId, Map<PartitionRef, Long> offsets, Future<Answer<FetchResponseData>> answer, boolean adopted) {
            this.adopted = adopted;
            this.brokerId = brokerId;
            this.offsets = offsets;
            this.answer = answer;
        }
    }

    /**
     * A partition result the proxy makes up: the error and Kafka's defaults (-1), never 0. With
     * {@link Errors#NONE} it is a partition still waiting on its broker, which clients ignore.
     */
    private static PartitionData errorPartition(PartitionRef ref, Errors error) {
        return new PartitionData().setPartitionIndex(ref.partition()).setErrorCode(error.code())
                .setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
    }
}
