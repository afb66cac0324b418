package org.kafscale.proxy.core.local;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.codec.TopicNames;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Answers DescribeTopicPartitions (KIP-966; what the Admin's {@code describeTopics} by name uses)
 * from the topology, with leaders, replicas and ISR as Metadata shows them
 * ({@link AdvertisedCluster}).
 *
 * <p>Paging as a Kafka broker pages: topics in name order from the cursor's topic (its partition
 * index applies to that topic only); at most {@code ResponsePartitionLimit} partitions (at least
 * 1, at most the broker's default cap of 2000), and when partitions are left the next cursor
 * names the first one not sent. An empty topic list means every topic, and unknown names are then
 * skipped; a named topic that is unknown gets UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION
 * for a name Kafka refuses). Named topics the snapshot lacks are looked up in the source first,
 * never created. The topology does not carry eligible leader replicas (KIP-966), so ELR and last
 * known ELR are empty, as on a cluster where every ISR is at least its minimum.
 */
public final class DescribeTopicPartitionsResponder {
    /** Kafka's {@code max.request.partition.size.limit} default, the most a broker sends in one answer. */
    static final int MAX_PARTITIONS = 2000;
    private static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;

    private final Topology topology;
    private final AdvertisedListener advertised;

    public DescribeTopicPartitionsResponder(Topology topology, AdvertisedListener advertised) {
        this.topology = topology;
        this.advertised = advertised;
    }

    public CompletionStage<ByteBuf> answer(RequestFrame request) {
        DescribeTopicPartitionsRequestData data = request.decodeBody(DescribeTopicPartitionsRequestData.class);
        TopologySnapshot current = topology.snapshot();
        Set<String> missing = new TreeSet<>();
        for (TopicRequest t : data.topics()) {
            if (TopicNames.isValid(t.name()) && current.topic(t.name()).isEmpty()) {
                missing.add(t.name());
            }
        }
        CompletionStage<TopologySnapshot> snapshot = missing.isEmpty() ? CompletableFuture.completedFuture(current)
                : topology.lookupTopics(missing, false);
        return snapshot.thenApply(s -> ResponseFrames.encode(request, build(data, s)));
    }

    DescribeTopicPartitionsResponseData build(DescribeTopicPartitionsRequestData request, TopologySnapshot snapshot) {
        AdvertisedCluster cluster = new AdvertisedCluster(advertised, snapshot);
        boolean allTopics = request.topics().isEmpty();
        String cursorTopic = request.cursor() == null ? "" : request.cursor().topicName();
        int cursorPartition = request.cursor() == null ? 0 : request.cursor().partitionIndex();
        TreeSet<String> names = new TreeSet<>();
        if (allTopics) {
            names.addAll(snapshot.topics().keySet());
        } else {
            request.topics().forEach(t -> names.add(t.name()));
        }
        int remaining = Math.max(Math.min(MAX_PARTITIONS, request.responsePartitionLimit()), 1);
        DescribeTopicPartitionsResponseData response = new DescribeTopicPartitionsResponseData().setThrottleTimeMs(0);
        for (String name : names.tailSet(cursorTopic, true)) {
            if (remaining == 0) {
                // Every partition of the topics before was sent: the next page starts at this topic.
                response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(0));
                break;
            }
            TopicLayout topic = snapshot.topic(name).orElse(null);
            if (topic == null) {
                if (!allTopics) {
                    response.topics().add(new DescribeTopicPartitionsResponseTopic().setName(name)
                            .setTopicId(Uuid.ZERO_UUID).setErrorCode(MetadataResponder.unknownNameError(name).code())
                            .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED));
                }
                continue;
            }
            int first = name.equals(cursorTopic) ? cursorPartition : 0;
            List<DescribeTopicPartitionsResponsePartition> partitions = new ArrayList<>();
            int next = -1;
            for (PartitionLayout p : topic.partitions().tailMap(first).values()) {
                if (partitions.size() == remaining) {
                    next = p.partition();
                    break;
                }
                partitions.add(describe(cluster, name, p));
            }
            response.topics().add(new DescribeTopicPartitionsResponseTopic().setName(name).setTopicId(topic.id())
                    .setIsInternal(topic.internal()).setErrorCode(Errors.NONE.code()).setPartitions(partitions)
                    .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED));
            if (next != -1) {
                response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(next));
                break;
            }
            remaining -= partitions.size();
        }
        return response;
    }

    private static DescribeTopicPartitionsResponsePartition describe(AdvertisedCluster cluster, String topic,
                                                                     PartitionLayout p) {
        AdvertisedCluster.Partition shown = cluster.partition(topic, p);
        return new DescribeTopicPartitionsResponsePartition()
                .setPartitionIndex(p.partition())
                .setErrorCode(shown.error().code())
                .setLeaderId(shown.leaderId())
                .setLeaderEpoch(p.leaderEpoch())
                .setReplicaNodes(shown.replicas())
                .setIsrNodes(shown.isr())
                .setEligibleLeaderReplicas(List.of())
                .setLastKnownElr(List.of())
                .setOfflineReplicas(shown.offlineReplicas());
    }
}
