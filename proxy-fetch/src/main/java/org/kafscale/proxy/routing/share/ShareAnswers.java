package org.kafscale.proxy.routing.share;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.ObjIntConsumer;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BrokerErrors;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.routing.engine.LeaderHints;
import org.kafscale.proxy.routing.engine.StaleRoutes;
import org.kafscale.proxy.routing.share.ShareRoute.Outcome;

/**
 * Merges the brokers' answers to one client share request into the answer the client expects from
 * its one node: every partition result of every broker (records as slices of the brokers' frames),
 * leader hints with the ids the client knows and the proxy's address, and an acknowledgement error
 * for each partition whose acknowledgements did not reach a broker session. A broker that refused
 * its session or failed does not fail the whole answer: the other brokers' records are the
 * member's now and must reach it.
 */
public final class ShareAnswers {
    private final Topology topology;
    private final LeaderHints hints;
    private final AdvertisedListener advertised;
    private final StaleRoutes staleRoutes;

    public ShareAnswers(Topology topology, LeaderHints hints, AdvertisedListener advertised, StaleRoutes staleRoutes) {
        this.topology = topology;
        this.hints = hints;
        this.advertised = advertised;
        this.staleRoutes = staleRoutes;
    }

    static short topLevelError(ApiMessage body) {
        if (body instanceof ShareFetchResponseData r) {
            return r.errorCode();
        }
        if (body instanceof ShareAcknowledgeResponseData r) {
            return r.errorCode();
        }
        throw new IllegalArgumentException(body.getClass().getSimpleName() + " is no share answer");
    }

    ByteBuf mergeFetch(LogFields connection, RequestFrame request, SharePlan plan,
                       List<Outcome<ShareFetchResponseData>> outcomes) {
        Gathered<ShareFetchResponseData.PartitionData> gathered = gather(connection, plan, outcomes, FETCH_ANSWER);
        ShareFetchResponseData merged = new ShareFetchResponseData().setErrorCode(Errors.NONE.code())
                .setThrottleTimeMs(gathered.throttleTimeMs).setAcquisitionLockTimeoutMs(gathered.lockTimeoutOr(0));
        Map<SharedPartition, ShareFetchResponseData.PartitionData> results = gathered.results;
        plan.unknown().forEach((p, error) -> results.put(p, emptyFetchResult(p).setErrorCode(error.code())
                .setErrorMessage(error.message())));
        gathered.ackErrors.forEach((p, error) -> results.computeIfAbsent(p, ShareAnswers::emptyFetchResult)
                .setAcknowledgeErrorCode(error.code()).setAcknowledgeErrorMessage(error.message()));
        results.forEach((p, result) -> {
            ShareFetchResponseData.ShareFetchableTopicResponse topic = merged.responses().find(p.topicId());
            if (topic == null) {
                topic = new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(p.topicId());
                merged.responses().add(topic);
            }
            topic.partitions().add(result);
        });
        gathered.hinted.forEach(id -> merged.nodeEndpoints().add(new ShareFetchResponseData.NodeEndpoint().setNodeId(id)
                .setHost(advertised.hostOf(id)).setPort(advertised.portOf(id))));
        return ResponseFrames.encode(ApiKeys.SHARE_FETCH, request.apiVersion(), request.correlationId(), merged,
                framesOf(outcomes));
    }

    ByteBuf mergeAcknowledge(LogFields connection, RequestFrame request, SharePlan plan,
                             List<Outcome<ShareAcknowledgeResponseData>> outcomes) {
        Gathered<ShareAcknowledgeResponseData.PartitionData> gathered =
                gather(connection, plan, outcomes, ACKNOWLEDGE_ANSWER);
        ShareAcknowledgeResponseData merged = new ShareAcknowledgeResponseData().setErrorCode(Errors.NONE.code())
                .setThrottleTimeMs(gathered.throttleTimeMs);
        if (gathered.lockTimeout != Integer.MAX_VALUE) {
            merged.setAcquisitionLockTimeoutMs(gathered.lockTimeout);
        }
        Map<SharedPartition, ShareAcknowledgeResponseData.PartitionData> results = gathered.results;
        gathered.ackErrors.forEach((p, error) -> results.put(p, new ShareAcknowledgeResponseData.PartitionData()
                .setPartitionIndex(p.partition()).setErrorCode(error.code()).setErrorMessage(error.message())
                .setCurrentLeader(new ShareAcknowledgeResponseData.LeaderIdAndEpoch().setLeaderId(-1).setLeaderEpoch(-1))));
        results.forEach((p, result) -> {
            ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse topic = merged.responses().find(p.topicId());
            if (topic == null) {
                topic = new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(p.topicId());
                merged.responses().add(topic);
            }
            topic.partitions().add(result);
        });
        gathered.hinted.forEach(id -> merged.nodeEndpoints().add(new ShareAcknowledgeResponseData.NodeEndpoint().setNodeId(id)
                .setHost(advertised.hostOf(id)).setPort(advertised.portOf(id))));
        return ResponseFrames.encode(ApiKeys.SHARE_ACKNOWLEDGE, request.apiVersion(), request.correlationId(), merged);
    }

    /**
     * What both merges do with the brokers' answers, in broker order: a failed or refused part
     * turns its acknowledgements into errors; the others give the highest throttle, the shortest
     * acquisition lock, and their partition results, each leader in the client's ids (hinted
     * when it moved).
     */
    private <R, P> Gathered<P> gather(LogFields connection, SharePlan plan, List<Outcome<R>> outcomes,
                                      AnswerShape<R, P> shape) {
        Gathered<P> gathered = new Gathered<>(plan.refusedAcks());
        for (Outcome<R> outcome : inBrokerOrder(outcomes)) {
            R body = outcome.body();
            short error = body == null ? Errors.REQUEST_TIMED_OUT.code() : (short) shape.errorCode().applyAsInt(body);
            if (error != Errors.NONE.code()) {
                failedAcks(outcome, Errors.forCode(error), gathered.ackErrors);
                continue;
            }
            gathered.throttleTimeMs = Math.max(gathered.throttleTimeMs, shape.throttleTimeMs().applyAsInt(body));
            int lockTimeout = shape.acquisitionLockTimeoutMs().applyAsInt(body);
            if (lockTimeout > 0) {
                gathered.lockTimeout = Math.min(gathered.lockTimeout, lockTimeout);
            }
            shape.forEachPartition().accept(body, (topicId, p) -> {
                int clientLeader = hints.clientLeaderId(shape.leaderId().applyAsInt(p));
                shape.setLeaderId().accept(p, clientLeader);
                int partition = shape.partitionIndex().applyAsInt(p);
                if (leaderMoved(connection, outcome, topicId, partition, (short) shape.partitionError().applyAsInt(p))
                        && clientLeader >= 0) {
                    gathered.hinted.add(clientLeader);
                }
                gathered.results.put(new SharedPartition(topicId, partition), p);
            });
        }
        return gathered;
    }

    /** The brokers' answers to one share request, gathered; what each merge builds its answer from. */
    private static final class Gathered<P> {
        final Map<SharedPartition, P> results = new LinkedHashMap<>();
        final Map<SharedPartition, Errors> ackErrors;
        final Set<Integer> hinted = new TreeSet<>();
        int throttleTimeMs;
        int lockTimeout = Integer.MAX_VALUE;

        Gathered(Map<SharedPartition, Errors> refusedAcks) {
            this.ackErrors = new LinkedHashMap<>(refusedAcks);
        }

        int lockTimeoutOr(int none) {
            return lockTimeout == Integer.MAX_VALUE ? none : lockTimeout;
        }
    }

    /**
     * Where one kind of share answer keeps what {@link #gather} reads. ShareFetch and
     * ShareAcknowledge answers carry the same fields, but Kafka's generated classes share no
     * interface, so each kind says once where they are.
     */
    private record AnswerShape<R, P>(ToIntFunction<R> errorCode, ToIntFunction<R> throttleTimeMs,
                                     ToIntFunction<R> acquisitionLockTimeoutMs,
                                     BiConsumer<R, BiConsumer<Uuid, P>> forEachPartition,
                                     ToIntFunction<P> partitionIndex, ToIntFunction<P> partitionError,
                                     ToIntFunction<P> leaderId, ObjIntConsumer<P> setLeaderId) {
    }

    private static final AnswerShape<ShareFetchResponseData, ShareFetchResponseData.PartitionData> FETCH_ANSWER =
            new AnswerShape<>(ShareFetchResponseData::errorCode, ShareFetchResponseData::throttleTimeMs,
                    ShareFetchResponseData::acquisitionLockTimeoutMs,
                    (body, each) -> body.responses().forEach(t -> t.partitions().forEach(p -> each.accept(t.topicId(), p))),
                    ShareFetchResponseData.PartitionData::partitionIndex, ShareFetchResponseData.PartitionData::errorCode,
                    p -> p.currentLeader().leaderId(), (p, id) -> p.currentLeader().setLeaderId(id));

    private static final AnswerShape<ShareAcknowledgeResponseData, ShareAcknowledgeResponseData.PartitionData>
            ACKNOWLEDGE_ANSWER = new AnswerShape<>(ShareAcknowledgeResponseData::errorCode,
                    ShareAcknowledgeResponseData::throttleTimeMs, ShareAcknowledgeResponseData::acquisitionLockTimeoutMs,
                    (body, each) -> body.responses().forEach(t -> t.partitions().forEach(p -> each.accept(t.topicId(), p))),
                    ShareAcknowledgeResponseData.PartitionData::partitionIndex,
                    ShareAcknowledgeResponseData.PartitionData::errorCode,
                    p -> p.currentLeader().leaderId(), (p, id) -> p.currentLeader().setLeaderId(id));

    /**
     * A leader-class error drops the partition's route, so the next ShareFetch moves it to its
     * new owner; the client is told with a hint in its own ids.
     */
    private boolean leaderMoved(LogFields connection, Outcome<?> outcome, Uuid topicId, int partition,
                                short errorCode) {
        if (!BrokerErrors.isLeaderClass(errorCode)) {
            return false;
        }
        String name = ShareRoute.name(topology.snapshot(), topicId);
        staleRoutes.drop(connection, outcome.broker(), new PartitionRef(null, topicId, partition, name), errorCode);
        return true;
    }

    /** The acknowledgements a failed or refused part carried did not take effect (as far as the proxy knows). */
    private static void failedAcks(Outcome<?> outcome, Errors error, Map<SharedPartition, Errors> ackErrors) {
        outcome.part().named().forEach((p, acks) -> {
            if (!acks.isEmpty()) {
                ackErrors.put(p, error);
            }
        });
    }

    private static ShareFetchResponseData.PartitionData emptyFetchResult(SharedPartition p) {
        return new ShareFetchResponseData.PartitionData().setPartitionIndex(p.partition()).setRecords(RecordSets.empty())
                .setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(-1).setLeaderEpoch(-1));
    }

    private static <R> List<Outcome<R>> inBrokerOrder(List<Outcome<R>> outcomes) {
        List<Outcome<R>> sorted = new ArrayList<>(outcomes);
        sorted.sort(Comparator.comparingInt(o -> o.part().broker()));
        return sorted;
    }

    private static List<ByteBuf> framesOf(List<? extends Outcome<?>> outcomes) {
        return outcomes.stream().map(Outcome::frame).filter(java.util.Objects::nonNull).toList();
    }
}
