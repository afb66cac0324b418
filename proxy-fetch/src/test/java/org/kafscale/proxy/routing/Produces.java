package org.kafscale.proxy.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * Produce requests and answers for routing tests, in kafka-clients' generated classes, at
 * {@link #VERSION} (topics named by id, as the topology knows them). Partitions are named
 * "topic-index" in what tests compare.
 */
public final class Produces {
    /** The latest Produce version: topics by id, leader hints. */
    public static final short VERSION = 13;

    private Produces() {
    }

    /** A Produce writing {@code records} to each named partition, in the order given. */
    public static ProduceRequestData request(StubTopology topology, short acks, Map<String, ? extends BaseRecords> records) {
        // At this version a topic is named by its id only, as clients send it.
        Map<String, TopicProduceData> topics = new LinkedHashMap<>();
        records.forEach((partition, batch) -> topics.computeIfAbsent(topicOf(partition),
                        topic -> new TopicProduceData().setName("").setTopicId(topology.topicId(topic)))
                .partitionData().add(new PartitionProduceData().setIndex(indexOf(partition)).setRecords(batch)));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000)
                .setTopicData(new ProduceRequestData.TopicProduceDataCollection(topics.values().iterator()));
    }

    /** One plain record for each partition, its value naming the partition, in the order given. */
    public static Map<String, BaseRecords> recordPerPartition(String... partitions) {
        Map<String, BaseRecords> records = new LinkedHashMap<>();
        for (String partition : partitions) {
            records.put(partition, TestRecords.plain("value of " + partition));
        }
        return records;
    }

    /** The answer a broker gives {@code request}: each partition's result from {@code result}, in request order. */
    public static ProduceResponseData answer(ProduceRequestData request,
                                             Function<PartitionProduceData, PartitionProduceResponse> result) {
        ProduceResponseData answer = new ProduceResponseData();
        for (TopicProduceData topic : request.topicData()) {
            TopicProduceResponse answered = new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
            topic.partitionData().forEach(p -> answered.partitionResponses().add(result.apply(p).setIndex(p.index())));
            answer.responses().add(answered);
        }
        return answer;
    }

    /** A stored partition: no error, at {@code baseOffset}. */
    public static PartitionProduceResponse stored(long baseOffset) {
        return new PartitionProduceResponse().setErrorCode(Errors.NONE.code()).setBaseOffset(baseOffset);
    }

    /** A refused partition, with Kafka's defaults for the rest. */
    public static PartitionProduceResponse refused(Errors error) {
        return new PartitionProduceResponse().setErrorCode(error.code()).setBaseOffset(-1).setLogAppendTimeMs(-1)
                .setLogStartOffset(-1);
    }

    /** The partitions a request names, in its order. */
    public static List<String> partitions(StubTopology topology, ProduceRequestData request) {
        List<String> partitions = new ArrayList<>();
        request.topicData().forEach(t -> t.partitionData().forEach(p -> partitions.add(name(topology, t, p.index()))));
        return partitions;
    }

    /** The records a request writes, by partition, in its order. */
    public static Map<String, BaseRecords> records(StubTopology topology, ProduceRequestData request) {
        Map<String, BaseRecords> records = new LinkedHashMap<>();
        request.topicData().forEach(t -> t.partitionData().forEach(p -> records.put(name(topology, t, p.index()), p.records())));
        return records;
    }

    /** An answer's partition results, by partition, in its order. */
    public static Map<String, PartitionProduceResponse> results(StubTopology topology, ProduceResponseData answer) {
        Map<String, PartitionProduceResponse> results = new LinkedHashMap<>();
        answer.responses().forEach(t -> t.partitionResponses().forEach(p -> results.put(
                (t.name().isEmpty() ? topology.topicName(t.topicId()) : t.name()) + "-" + p.index(), p)));
        return results;
    }

    private static String name(StubTopology topology, TopicProduceData topic, int index) {
        return (topic.name().isEmpty() ? topology.topicName(topic.topicId()) : topic.name()) + "-" + index;
    }

    static String topicOf(String partition) {
        return partition.substring(0, partition.lastIndexOf('-'));
    }

    static int indexOf(String partition) {
        return Integer.parseInt(partition.substring(partition.lastIndexOf('-') + 1));
    }
}
