package org.kafscale.proxy.routing.produce;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BrokerErrors;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.LeaderHints;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.engine.RetryPolicy;
import org.kafscale.proxy.routing.engine.TopicGroups;
import org.kafscale.proxy.routing.engine.TopicGroups.Shape;

/**
 * Produce for the partition engine; one per request. Records are slices of the client's frame in
 * every part, never copies.
 *
 * <p>Batches that carry a producer id (idempotent and transactional producers) get a single
 * attempt, and every error goes back to the client at once: the producer numbers its batches per
 * partition and may have its next request for the same partition already in flight, so a retry
 * here could be overtaken by it (OUT_OF_ORDER_SEQUENCE_NUMBER, seen in tests after a leader
 * change). The client's own retry keeps the order, and the broker drops duplicates. Other batches
 * are retried like any partition request, a failed part only when it was never written.
 */
final class ProduceApi implements PartitionApi<ProduceRequestData, PartitionProduceData, ProduceResponseData,
        PartitionProduceResponse> {
    private static final Shape<TopicProduceData, PartitionProduceData> REQUEST = new Shape<>(TopicProduceData::name,
            TopicProduceData::topicId, TopicProduceData::partitionData, PartitionProduceData::index,
            t -> new TopicProduceData().setName(t.wireName()).setTopicId(t.wireId()));
    private static final Shape<TopicProduceResponse, PartitionProduceResponse> ANSWER = new Shape<>(TopicProduceResponse::name,
            TopicProduceResponse::topicId, TopicProduceResponse::partitionResponses, PartitionProduceResponse::index,
            t -> new TopicProduceResponse().setName(t.wireName()).setTopicId(t.wireId()));

    /** A result's leader hint when the broker gave none; compared with, never changed. */
    private static final ProduceResponseData.LeaderIdAndEpoch NO_HINT = new ProduceResponseData.LeaderIdAndEpoch();

    private final ProduceRequestData request;
    private final LeaderHints hints;
    private final short version;
    /** Whether every batch carries a producer id; null until a decision needs it. */
    private Boolean idempotent;

    ProduceApi(ProduceRequestData request, short version, LeaderHints hints) {
        this.request = request;
        this.hints = hints;
        this.version = version;
    }

    /**
     * Whether every batch carries a producer id. Read from the batch headers when a decision first
     * needs it, which is only once something failed: a Produce that every broker takes never looks
     * (walking every batch of every request was some 8 % of the proxy's sampled allocations on
     * produce). The records are views of the client's frame, which outlives the exchange, so the
     * answer is the same whenever it is read; a caller that is about to change the records (the
     * LFS rewrite) reads it before.
     */
    boolean idempotent() {
        if (idempotent == null) {
            idempotent = allBatchesHaveProducerId(request);
        }
        return idempotent;
    }

    private static boolean allBatchesHaveProducerId(ProduceRequestData request) {
        for (TopicProduceData topic : request.topicData()) {
            for (PartitionProduceData partition : topic.partitionData()) {
                if (!RecordSets.allBatchesHaveProducerId(partition.records())) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public ApiKeys api() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public Map<PartitionRef, PartitionProduceData> partitions(ProduceRequestData request, TopologySnapshot snapshot) {
        return TopicGroups.partitions(request.topicData(), REQUEST, snapshot);
    }

    @Override
    public ProduceRequestData subRequest(ProduceRequestData request, List<PartitionRef> parts,
                                         Map<PartitionRef, PartitionProduceData> entries) {
        ProduceRequestData sub = new ProduceRequestData().setAcks(request.acks()).setTimeoutMs(request.timeoutMs())
                .setTransactionalId(request.transactionalId());
        sub.topicData().addAll(TopicGroups.group(parts, entries::get, REQUEST));
        return sub;
    }

    @Override
    public ProduceResponseData parseResponse(ByteBufferAccessor body, short version) {
        return new ProduceResponseData(body, version);
    }

    @Override
    public Map<PartitionRef.AnswerKey, PartitionProduceResponse> results(ProduceResponseData response) {
        return TopicGroups.results(response.responses(), ANSWER);
    }

    @Override
    public short errorCode(PartitionProduceResponse result) {
        return result.errorCode();
    }

    @Override
    public int throttleTimeMs(ProduceResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public PartitionProduceResponse synthetic(PartitionRef ref, Errors error) {
        return new PartitionProduceResponse().setIndex(ref.partition()).setErrorCode(error.code())
                .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
    }

    @Override
    public ProduceResponseData merge(ProduceRequestData request, Map<PartitionRef, PartitionProduceData> entries,
                                     Map<PartitionRef, PartitionProduceResponse> results, int throttleTimeMs) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(throttleTimeMs);
        response.responses().addAll(TopicGroups.group(entries.keySet(), results::get, ANSWER));
        Set<Integer> hintedLeaders = new HashSet<>();
        results.values().forEach(r -> hintedLeaders.add(r.currentLeader().leaderId()));
        hintedLeaders.remove(-1);
        hints.addEndpoints(response, hintedLeaders);
        return response;
    }

    @Override
    public int maxAttempts() {
        return idempotent() ? 1 : RetryPolicy.MAX_ATTEMPTS;
    }

    @Override
    public boolean mayResend(Throwable failure) {
        return !idempotent() && RetryPolicy.mayResend(failure, true);
    }

    @Override
    public Errors connectionError() {
        return idempotent() ? Errors.NETWORK_EXCEPTION : Errors.REQUEST_TIMED_OUT;
    }

    /** An answer that names brokers' endpoints (KIP-951) is re-encoded: the client sees the proxy's address. */
    @Override
    public boolean passesThrough(ProduceResponseData response) {
        return response.nodeEndpoints().isEmpty();
    }

    /**
     * Whether a broker's answer to the whole request may go back as it came, as the engine would
     * pass it through: every one of {@code partitions} has a result, none a leader-class error
     * (retried or answered with a hint at the proxy's address), and it names no broker's endpoint.
     */
    static boolean settlesAsSent(ProduceResponseData response, Collection<PartitionRef> partitions) {
        if (!response.nodeEndpoints().isEmpty()) {
            return false;
        }
        Map<PartitionRef.AnswerKey, PartitionProduceResponse> byKey = TopicGroups.results(response.responses(), ANSWER);
        for (PartitionRef ref : partitions) {
            PartitionProduceResponse result = byKey.get(ref.answerKey());
            if (result == null || BrokerErrors.isLeaderClass(result.errorCode())) {
                return false;
            }
        }
        return true;
    }

    /** The broker's hint is for the proxy; the client sees one only on a partition that fails. */
    @Override
    public PartitionProduceResponse accepted(PartitionProduceResponse result) {
        return NO_HINT.equals(result.currentLeader()) ? result
                : result.setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch());
    }

    @Override
    public PartitionProduceResponse failed(PartitionRef ref, Errors error, PartitionProduceResponse lastRefusal) {
        PartitionProduceResponse result = synthetic(ref, error);
        if (lastRefusal != null && lastRefusal.currentLeader().leaderId() >= 0 && hints.producePassesHints(version)) {
            result.setCurrentLeader(hints.forClient(lastRefusal.currentLeader()));
        }
        return result;
    }
}
