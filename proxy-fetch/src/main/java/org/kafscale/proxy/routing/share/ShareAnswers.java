package org.kafscale.proxy.routing.share;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
        ShareFetchResponseData merged = new ShareFetchResponseData().setErrorCode(Errors.NONE.code());
        Map<SharedPartition, ShareFetchResponseData.PartitionData> results = new LinkedHashMap<>();
        Map<SharedPartition, Errors> ackErrors = new LinkedHashMap<>(plan.refusedAcks());
        Set<Integer> hinted = new TreeSet<>();
        int lockTimeout = Integer.MAX_VALUE;
        for (Outcome<ShareFetchResponseData> outcome : inBrokerOrder(outcomes)) {
            ShareFetchResponseData body = outcome.body();
            if (body == null || body.errorCode() != Errors.NONE.code()) {
                failedAcks(outcome, body == null ? Errors.REQUEST_TIMED_OUT : Errors.forCode(body.errorCode()), ackErrors);
                continue;
            }
            merged.setThrottleTimeMs(Math.max(merged.throttleTimeMs(), body.throttleTimeMs()));
            if (body.acquisitionLockTimeoutMs() > 0) {
                lockTimeout = Math.min(lockTimeout, body.acquisitionLockTimeoutMs());
            }
            for (ShareFetchResponseData.ShareFetchableTopicResponse topic : body.responses()) {
                for (ShareFetchResponseData.PartitionData p : topic.partitions()) {
                    ShareFetchResponseData.LeaderIdAndEpoch leader = p.currentLeader();
                    int clientLeader = hints.clientLeaderId(leader.leaderId());
                    p.setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(clientLeader)
                            .setLeaderEpoch(leader.leaderEpoch()));
                    if (leaderMoved(connection, outcome, topic.topicId(), p.partitionIndex(), p.errorCode())
                            && clientLeader >= 0) {
                        hinted.add(clientLeader);
                    }
                    results.put(new SharedPartition(topic.topicId(), p.partitionIndex()), p);
                }
            }
        }
        merged.setAcquisitionLockTimeoutMs(lockTimeout == Integer.MAX_VALUE ? 0 : lockTimeout);
        plan.unknown().forEach((p, error) -> results.put(p, emptyFetchResult(p).setErrorCode(error.code())
                .setErrorMessage(error.message())));
        ackErrors.forEach((p, error) -> results.computeIfAbsent(p, ShareAnswers::emptyFetchResult)
                .setAcknowledgeErrorCode(error.code()).setAcknowledgeErrorMessage(error.message()));
        results.forEach((p, result) -> {
            ShareFetchResponseData.ShareFetchableTopicResponse topic = merged.responses().find(p.topicId());
            if (topic == null) {
                topic = new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(p.topicId());
                merged.responses().add(topic);
            }
            topic.partitions().add(result);
        });
        hinted.forEach(id -> merged.nodeEndpoints().add(new ShareFetchResponseData.NodeEndpoint().setNodeId(id)
                .setHost(advertised.host()).setPort(advertised.portOf(id))));
        return ResponseFrames.encode(ApiKeys.SHARE_FETCH, request.apiVersion(), request.correlationId(), merged,
                framesOf(outcomes));
    }

    ByteBuf mergeAcknowledge(LogFields connection, RequestFrame request, SharePlan plan,
                             List<Outcome<ShareAcknowledgeResponseData>> outcomes) {
        ShareAcknowledgeResponseData merged = new ShareAcknowledgeResponseData().setErrorCode(Errors.NONE.code());
        Map<SharedPartition, ShareAcknowledgeResponseData.PartitionData> results = new LinkedHashMap<>();
        Map<SharedPartition, Errors> ackErrors = new LinkedHashMap<>(plan.refusedAcks());
        Set<Integer> hinted = new TreeSet<>();
        int lockTimeout = Integer.MAX_VALUE;
        for (Outcome<ShareAcknowledgeResponseData> outcome : inBrokerOrder(outcomes)) {
            ShareAcknowledgeResponseData body = outcome.body();
            if (body == null || body.errorCode() != Errors.NONE.code()) {
                failedAcks(outcome, body == null ? Errors.REQUEST_TIMED_OUT : Errors.forCode(body.errorCode()), ackErrors);
                continue;
            }
            merged.setThrottleTimeMs(Math.max(merged.throttleTimeMs(), body.throttleTimeMs()));
            if (body.acquisitionLockTimeoutMs() > 0) {
                lockTimeout = Math.min(lockTimeout, body.acquisitionLockTimeoutMs());
            }
            for (ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse topic : body.responses()) {
                for (ShareAcknowledgeResponseData.PartitionData p : topic.partitions()) {
                    ShareAcknowledgeResponseData.LeaderIdAndEpoch leader = p.currentLeader();
                    int clientLeader = hints.clientLeaderId(leader.leaderId());
                    p.setCurrentLeader(new ShareAcknowledgeResponseData.LeaderIdAndEpoch().setLeaderId(clientLeader)
                            .setLeaderEpoch(leader.leaderEpoch()));
                    if (leaderMoved(connection, outcome, topic.topicId(), p.partitionIndex(), p.errorCode())
                            && clientLeader >= 0) {
                        hinted.add(clientLeader);
                    }
                    results.put(new SharedPartition(topic.topicId(), p.partitionIndex()), p);
                }
            }
        }
        if (lockTimeout != Integer.MAX_VALUE) {
            merged.setAcquisitionLockTimeoutMs(lockTimeout);
        }
        ackErrors.forEach((p, error) -> results.put(p, new ShareAcknowledgeResponseData.PartitionData()
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
        hinted.forEach(id -> merged.nodeEndpoints().add(new ShareAcknowledgeResponseData.NodeEndpoint().setNodeId(id)
                .setHost(advertised.host()).setPort(advertised.portOf(id))));
        return ResponseFrames.encode(ApiKeys.SHARE_ACKNOWLEDGE, request.apiVersion(), request.correlationId(), merged);
    }

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
