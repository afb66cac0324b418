package org.kafscale.proxy.core.codec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;

/** The requests the proxy makes on its own behalf, each answered in generated {@code *Data} classes. */
public final class OutboundRequests {
    /** ListOffsets' timestamp that asks for the offset after the last record. */
    public static final long LATEST_TIMESTAMP = ListOffsetsRequest.LATEST_TIMESTAMP;
    /** ListOffsets' timestamp that asks for the first offset still held. */
    public static final long EARLIEST_TIMESTAMP = ListOffsetsRequest.EARLIEST_TIMESTAMP;
    /** Produce and Fetch name topics by id from v13: without every id known they stay at v12. */
    private static final short LAST_VERSION_NAMING_TOPICS = 12;

    private OutboundRequests() {
    }

    /** ApiVersions, announcing kafka-clients' software name and version as Kafka's own clients do. */
    public static OutboundRequest<ApiVersionsResponseData> apiVersions() {
        return new OutboundRequest<>(new ApiVersionsRequest.Builder(), data(ApiVersionsResponseData.class));
    }

    /** Metadata of every topic. */
    public static OutboundRequest<MetadataResponseData> allTopicsMetadata() {
        return new OutboundRequest<>(MetadataRequest.Builder.allTopics(), data(MetadataResponseData.class));
    }

    /** Metadata of the named topics, which the broker may create when {@code allowAutoCreate}. */
    public static OutboundRequest<MetadataResponseData> topicsMetadata(List<String> names, boolean allowAutoCreate) {
        return new OutboundRequest<>(new MetadataRequest.Builder(new ArrayList<>(names), allowAutoCreate),
                data(MetadataResponseData.class));
    }

    /**
     * The coordinator of one key, at any version: below v4 the answer's single coordinator comes
     * back as a one-element list like the batched answers of v4 and later.
     */
    public static OutboundRequest<List<Coordinator>> findCoordinator(byte keyType, String key) {
        FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKeyType(keyType)
                .setCoordinatorKeys(List.of(key));
        return new OutboundRequest<>(new FindCoordinatorRequest.Builder(data),
                response -> ((FindCoordinatorResponse) response).coordinators());
    }

    /** A Produce, by topic id when every topic's id is known, else by name (v12 at most). */
    public static OutboundRequest<ProduceResponseData> produce(ProduceRequestData data) {
        boolean everyIdKnown = data.topicData().stream().noneMatch(t -> Uuid.ZERO_UUID.equals(t.topicId()));
        short latest = everyIdKnown ? ApiKeys.PRODUCE.latestVersion() : LAST_VERSION_NAMING_TOPICS;
        return new OutboundRequest<>(new ProduceRequest.Builder(ApiKeys.PRODUCE.oldestVersion(), latest, data),
                data(ProduceResponseData.class));
    }

    public static OutboundRequest<CreateTopicsResponseData> createTopics(CreateTopicsRequestData data) {
        return new OutboundRequest<>(new CreateTopicsRequest.Builder(data), data(CreateTopicsResponseData.class));
    }

    /**
     * ListOffsets as a consumer reading uncommitted records would ask it; each partition's
     * timestamp is {@link #LATEST_TIMESTAMP}, {@link #EARLIEST_TIMESTAMP} or a time.
     */
    public static OutboundRequest<ListOffsetsResponseData> listOffsets(List<ListOffsetsTopic> topics) {
        return new OutboundRequest<>(ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(topics), data(ListOffsetsResponseData.class));
    }

    /**
     * Where a Fetch of one partition starts.
     *
     * @param topicId the topic's id, {@link Uuid#ZERO_UUID} when unknown
     * @param offset the first offset to read
     */
    public record FetchStart(Uuid topicId, long offset) {
    }

    /**
     * A sessionless Fetch as a consumer reading uncommitted records would send it, answered at once
     * (no wait for data); by topic id when every id is known, else by name (v12 at most).
     *
     * @param maxBytes the most bytes asked for, per partition and in all
     */
    public static OutboundRequest<FetchResponseData> fetch(Map<TopicPartition, FetchStart> partitions, int maxBytes) {
        Map<TopicPartition, FetchRequest.PartitionData> fetchData = new LinkedHashMap<>();
        partitions.forEach((tp, start) -> fetchData.put(tp, new FetchRequest.PartitionData(start.topicId(),
                start.offset(), -1, maxBytes, Optional.empty())));
        boolean everyIdKnown = partitions.values().stream().noneMatch(s -> Uuid.ZERO_UUID.equals(s.topicId()));
        short latest = everyIdKnown ? ApiKeys.FETCH.latestVersion() : LAST_VERSION_NAMING_TOPICS;
        FetchRequest.Builder builder = FetchRequest.Builder.forConsumer(latest, 0, 1, fetchData)
                .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
                .setMaxBytes(maxBytes);
        return new OutboundRequest<>(builder, data(FetchResponseData.class));
    }

    /** SaslHandshake: asks the broker to authenticate with {@code mechanism} (send at v1, KIP-152). */
    public static OutboundRequest<SaslHandshakeResponseData> saslHandshake(String mechanism) {
        return new OutboundRequest<>(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism)),
                data(SaslHandshakeResponseData.class));
    }

    /** SaslAuthenticate: one SASL token of the exchange SaslHandshake started. */
    public static OutboundRequest<SaslAuthenticateResponseData> saslAuthenticate(byte[] token) {
        return new OutboundRequest<>(new SaslAuthenticateRequest.Builder(
                new SaslAuthenticateRequestData().setAuthBytes(token)), data(SaslAuthenticateResponseData.class));
    }

    private static <D extends ApiMessage> Function<AbstractResponse, D> data(Class<D> type) {
        return response -> type.cast(response.data());
    }
}
