package org.kafscale.proxy.routing.fetch;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.FetchSessions;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.engine.CompletionPolicy;
import org.kafscale.proxy.routing.engine.LeaderHints;
import org.kafscale.proxy.routing.engine.Part;
import org.kafscale.proxy.routing.engine.PartitionApi;
import org.kafscale.proxy.routing.engine.TopicGroups;
import org.kafscale.proxy.routing.engine.TopicGroups.Shape;
import org.kafscale.proxy.core.backend.Answer;

/**
 * Fetch for the partition engine; one per request. Each part goes on an idle channel to its
 * broker, and the merged answer's record sets are slices of the brokers' answer frames.
 *
 * <p>No waiting on the slowest broker ({@link FetchCompletion}): partitions still waiting on other
 * brokers when the client is answered are answered empty (no error, offsets -1, which clients
 * ignore). Parts still long-polling are parked ({@link ParkedPolls}) and adopted by the
 * connection's next Fetch that asks the same broker for the same partitions at the same offsets,
 * so an idle broker never has more than one poll of a connection queued.
 *
 * <p>Every part is a sessionless full fetch (session id 0, epoch -1): a session pinned to one
 * broker could not survive partitions moving. A partition with no owner is answered at once with
 * why: a consumer refreshes its metadata on that, and holding it would only delay the others.
 *
 * <p>A merged answer keeps to the request's {@code max_bytes} ({@link FetchByteLimit}); one
 * broker's answer passed through already does. Parts carry no rack ({@link #NO_RACK}), so leaders
 * serve every partition and no broker's preferred read replica reaches the client.
 *
 * <p>What is asked beyond the client's Fetch is its connection's {@link FetchPrefetcher}'s.
 */
final class FetchApi implements PartitionApi<FetchRequestData, FetchPartition, FetchResponseData, PartitionData> {
    /**
     * The rack every part carries (KIP-392): none, so the leader the proxy routes to serves the
     * records itself. With the client's rack, a broker with a rack-aware replica selector answers
     * no records and names a follower, and the client, which reaches brokers only through the
     * proxy's routing to leaders, would ask the leader again forever.
     */
    static final String NO_RACK = "";
    /** Kafka's value for "read from the leader". */
    private static final int NO_PREFERRED_REPLICA = -1;

    private static final Shape<FetchTopic, FetchPartition> REQUEST = new Shape<>(FetchTopic::topic, FetchTopic::topicId,
            FetchTopic::partitions, FetchPartition::partition,
            t -> new FetchTopic().setTopic(t.wireName()).setTopicId(t.wireId()));
    private static final Shape<FetchableTopicResponse, PartitionData> ANSWER = new Shape<>(FetchableTopicResponse::topic,
            FetchableTopicResponse::topicId, FetchableTopicResponse::partitions, PartitionData::partitionIndex,
            t -> new FetchableTopicResponse().setTopic(t.wireName()).setTopicId(t.wireId()));

    private final FetchRequestData request;
    private final short version;
    private final LeaderHints hints;
    private final ParkedPolls parked;
    private final RequestFrame frame;
    private final EventLoop loop;
    private final FetchPrefetcher prefetcher;
    /** Every part sent (or adopted), for the prefetcher once the answer is merged. */
    private final List<Part<FetchResponseData>> sent = new ArrayList<>();
    private Sender<FetchResponseData> sender;
    private Map<PartitionRef, FetchPartition> entries = Map.of();
    private boolean anyRecords;
    private boolean namedReadReplica;
    /** A part's answer was adopted from a question with more partitions than this Fetch's part. */
    private boolean adoptedCovering;

    /**
     * @param frame the client's request, whose header the parts asked ahead carry
     * @param prefetcher what the connection asks ahead of its client
     */
    FetchApi(FetchRequestData request, RequestFrame frame, LeaderHints hints, ParkedPolls parked, EventLoop loop,
             FetchPrefetcher prefetcher) {
        this.request = request;
        this.version = frame.apiVersion();
        this.frame = frame;
        this.hints = hints;
        this.parked = parked;
        this.loop = loop;
        this.prefetcher = prefetcher;
    }

    @Override
    public ApiKeys api() {
        return ApiKeys.FETCH;
    }

    @Override
    public Map<PartitionRef, FetchPartition> partitions(FetchRequestData request, TopologySnapshot snapshot) {
        this.entries = TopicGroups.partitions(request.topics(), REQUEST, snapshot);
        return entries;
    }

    @Override
    public FetchRequestData subRequest(FetchRequestData request, List<PartitionRef> parts,
                                       Map<PartitionRef, FetchPartition> entries) {
        FetchRequestData sub = new FetchRequestData()
                .setClusterId(request.clusterId()).setReplicaId(request.replicaId()).setReplicaState(request.replicaState())
                .setMaxWaitMs(request.maxWaitMs()).setMinBytes(request.minBytes()).setMaxBytes(request.maxBytes())
                .setIsolationLevel(request.isolationLevel()).setRackId(NO_RACK)
                .setSessionId(FetchSessions.NO_SESSION).setSessionEpoch(FetchSessions.SESSIONLESS_EPOCH);
        return sub.setTopics(TopicGroups.group(parts, entries::get, REQUEST));
    }

    @Override
    public FetchResponseData parseResponse(ByteBufferAccessor body, short version) {
        return new FetchResponseData(body, version);
    }

    /** Results by partition; a top-level error stands for every partition that has none of its own. */
    @Override
    public Map<PartitionRef.AnswerKey, PartitionData> results(FetchResponseData response) {
        Map<PartitionRef.AnswerKey, PartitionData> results = TopicGroups.results(response.responses(), ANSWER);
        if (response.errorCode() != Errors.NONE.code()) {
            results.values().stream().filter(p -> p.errorCode() == Errors.NONE.code())
                    .forEach(p -> p.setErrorCode(response.errorCode()));
        }
        return results;
    }

    @Override
    public short errorCode(PartitionData result) {
        return result.errorCode();
    }

    @Override
    public int throttleTimeMs(FetchResponseData response) {
        return response.throttleTimeMs();
    }

    /**
     * A partition as a broker answers it when it has nothing to say (an error, or with
     * {@link Errors#NONE} a partition still waiting on its broker, which clients ignore): offsets
     * unknown, no records, and no aborted-transaction list (null, as Kafka sends with an error).
     */
    @Override
    public PartitionData synthetic(PartitionRef ref, Errors error) {
        return new PartitionData().setPartitionIndex(ref.partition()).setErrorCode(error.code())
                .setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(-1).setAbortedTransactions(null)
                .setRecords(RecordSets.empty());
    }

    @Override
    public FetchResponseData merge(FetchRequestData request, Map<PartitionRef, FetchPartition> entries,
                                   Map<PartitionRef, PartitionData> results, int throttleTimeMs) {
        FetchByteLimit limit = new FetchByteLimit(request.maxBytes());
        entries.keySet().forEach(ref -> limit.admit(results.get(ref)));
        FetchResponseData merged = new FetchResponseData().setThrottleTimeMs(throttleTimeMs)
                .setErrorCode(Errors.NONE.code()).setSessionId(FetchSessions.NO_SESSION)
                .setResponses(TopicGroups.group(entries.keySet(), results::get, ANSWER));
        Set<Integer> hintedLeaders = new HashSet<>();
        results.values().forEach(r -> hintedLeaders.add(r.currentLeader().leaderId()));
        hintedLeaders.remove(-1);
        hints.addEndpoints(merged, hintedLeaders);
        prefetcher.answered(this, results);
        return merged;
    }

    @Override
    public Errors connectionError() {
        return Errors.NOT_LEADER_OR_FOLLOWER;
    }

    @Override
    public boolean retriesUnroutable() {
        return false;
    }

    @Override
    public boolean sendsClientBytes(FetchRequestData request) {
        return FetchSessions.isSessionless(request) && request.rackId().isEmpty();
    }

    /**
     * Not with a preferred read replica (seen as its partitions were accepted): it names a real
     * broker; nor an adopted answer to more partitions than the client asked.
     */
    @Override
    public boolean passesThrough(FetchResponseData response) {
        return response.errorCode() == Errors.NONE.code() && !namedReadReplica && !adoptedCovering;
    }

    /**
     * Without the broker's hints for the client: a new leader's id (hinted again on failure only)
     * and a preferred read replica, which the proxy, reading from leaders, does not follow.
     */
    @Override
    public PartitionData accepted(PartitionData result) {
        anyRecords |= RecordSets.sizeInBytes(result.records()) > 0;
        namedReadReplica |= result.preferredReadReplica() != NO_PREFERRED_REPLICA;
        return result.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch())
                .setPreferredReadReplica(NO_PREFERRED_REPLICA);
    }

    @Override
    public PartitionData failed(PartitionRef ref, Errors error, PartitionData lastRefusal) {
        PartitionData result = synthetic(ref, error);
        if (lastRefusal != null && lastRefusal.currentLeader().leaderId() >= 0 && hints.fetchPassesHints(version)) {
            result.setCurrentLeader(hints.forClient(lastRefusal.currentLeader()));
        }
        return result;
    }

    /** Answered early, a partition still waiting on its broker is simply empty this time. */
    @Override
    public PartitionData unanswered(PartitionRef ref, Errors lastError, PartitionData lastRefusal) {
        return synthetic(ref, Errors.NONE);
    }

    /**
     * The part an earlier Fetch parked or read ahead when it asked exactly this; else a sub-Fetch on
     * an idle channel. A taken-over poll counts as long-polling (not lingered for); a read-ahead
     * still on its way does not: its broker just had records, so it is likely to bring more.
     */
    @Override
    public Future<Answer<FetchResponseData>> send(Part<FetchResponseData> part, Supplier<ByteBuf> frame,
                                                  Sender<FetchResponseData> sender) {
        this.sender = sender;
        sent.add(part);
        Optional<ParkedPolls.Adopted> adopted = parked.adopt(part.broker().id(), asked(part));
        if (adopted.isPresent()) {
            if (!adopted.get().sentAhead()) {
                part.markAdopted();
            }
            adoptedCovering |= adopted.get().covering();
            return adopted.get().answer();
        }
        return sender.exchange(part.broker(), frame.get(), maxWaitMillis(), true);
    }

    @Override
    public CompletionPolicy<FetchResponseData> completion() {
        return new FetchCompletion(this);
    }

    /** Whether a part brought records the client gets. */
    boolean anyRecords() {
        return anyRecords;
    }

    /**
     * A part still long-polling when the client was answered: kept by the prefetcher, or parked for
     * the connection's next Fetch to adopt.
     */
    void stillPolling(Part<FetchResponseData> part) {
        if (!prefetcher.keeps(this, part)) {
            parked.park(part.broker().id(), asked(part), part.answer(), loop);
        }
    }

    /** Asks a part's broker again now, on an idle channel, for {@code next}: the part's partitions at new entries. */
    Future<Answer<FetchResponseData>> askAgain(Part<FetchResponseData> part, Map<PartitionRef, FetchPartition> next) {
        ByteBuf ahead = RequestFrames.reencode(frame, subRequest(request, part.partitions(), next));
        return sender.exchange(part.broker(), ahead, maxWaitMillis(), true);
    }

    /** Every part sent or adopted so far. */
    List<Part<FetchResponseData>> sentParts() {
        return sent;
    }

    /** Every partition of the request with its entry, in request order. */
    Map<PartitionRef, FetchPartition> entries() {
        return entries;
    }

    EventLoop loop() {
        return loop;
    }

    long maxWaitMillis() {
        return Math.max(0, request.maxWaitMs());
    }

    /** What a part asks of its broker, for {@link ParkedPolls} to match an earlier part against. */
    ParkedPolls.Asked asked(Part<FetchResponseData> part) {
        Map<PartitionRef, FetchPartition> partitions = new HashMap<>();
        part.partitions().forEach(ref -> partitions.put(ref, entries.get(ref)));
        return asked(partitions);
    }

    /** {@code partitions} asked with this Fetch's limits, isolation level and version. */
    ParkedPolls.Asked asked(Map<PartitionRef, FetchPartition> partitions) {
        return new ParkedPolls.Asked(partitions, request.maxBytes(), request.isolationLevel(), version);
    }
}
