package org.kafscale.proxy.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.requests.FetchMetadata;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * Fetch requests and answers for routing tests, in kafka-clients' generated classes, at
 * {@link #VERSION} (topics named by id), as a consumer sends them: sessionless, from offset 0.
 * Partitions are named "topic-index" in what tests compare.
 */
public final class Fetches {
    /** A consumer's Fetch version: topics by id. */
    public static final short VERSION = 17;

    private Fetches() {
    }

    /** A consumer's Fetch of {@code partitions} from offset 0, waiting up to {@code maxWaitMs} for data. */
    public static FetchRequestData request(StubTopology topology, int maxWaitMs, String... partitions) {
        Map<String, FetchTopic> topics = new LinkedHashMap<>();
        for (String partition : partitions) {
            topics.computeIfAbsent(Produces.topicOf(partition), t -> new FetchTopic().setTopicId(topology.topicId(t)))
                    .partitions().add(new FetchPartition().setPartition(Produces.indexOf(partition)).setFetchOffset(0)
                            .setPartitionMaxBytes(1024 * 1024));
        }
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(50 * 1024 * 1024)
                .setSessionId(FetchMetadata.INVALID_SESSION_ID).setSessionEpoch(FetchMetadata.FINAL_EPOCH)
                .setTopics(new ArrayList<>(topics.values()));
    }

    /** The answer a broker gives {@code request}: each partition's records from {@code records}, in request order. */
    public static FetchResponseData answer(FetchRequestData request, Function<FetchPartition, BaseRecords> records) {
        FetchResponseData answer = new FetchResponseData().setErrorCode(Errors.NONE.code());
        for (FetchTopic topic : request.topics()) {
            FetchableTopicResponse answered = new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId());
            for (FetchPartition p : topic.partitions()) {
                BaseRecords batch = records.apply(p);
                answered.partitions().add(new PartitionData().setPartitionIndex(p.partition())
                        .setErrorCode(Errors.NONE.code()).setHighWatermark(batch.sizeInBytes() > 0 ? 1 : 0)
                        .setLastStableOffset(0).setLogStartOffset(0).setRecords(batch));
            }
            answer.responses().add(answered);
        }
        return answer;
    }

    /** An answer with nothing new for any partition, as a broker gives when a poll ends without data. */
    public static FetchResponseData empty(FetchRequestData request) {
        return answer(request, p -> TestRecords.empty());
    }

    /** The partitions a request names, in its order. */
    public static List<String> partitions(StubTopology topology, FetchRequestData request) {
        List<String> partitions = new ArrayList<>();
        request.topics().forEach(t -> t.partitions().forEach(p -> partitions.add(
                topology.topicName(t.topicId()) + "-" + p.partition())));
        return partitions;
    }

    /** An answer's partition results, by partition, in its order. */
    public static Map<String, PartitionData> results(StubTopology topology, FetchResponseData answer) {
        Map<String, PartitionData> results = new LinkedHashMap<>();
        answer.responses().forEach(t -> t.partitions().forEach(p -> results.put(
                topology.topicName(t.topicId()) + "-" + p.partitionIndex(), p)));
        return results;
    }

    /** An answer's record values, by partition, in its order. */
    public static Map<String, List<String>> values(StubTopology topology, FetchResponseData answer) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        results(topology, answer).forEach((partition, p) -> values.put(partition, TestRecords.values(p.records())));
        return values;
    }

    /** An answer's error per partition, by partition, in its order. */
    public static Map<String, Errors> errors(StubTopology topology, FetchResponseData answer) {
        Map<String, Errors> errors = new LinkedHashMap<>();
        results(topology, answer).forEach((partition, p) -> errors.put(partition, Errors.forCode(p.errorCode())));
        return errors;
    }
}
