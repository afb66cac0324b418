package org.kafscale.proxy.core.local;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.MetadataRequests;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.codec.TopicNames;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Answers Metadata from the topology, with every broker at the proxy's advertised address.
 *
 * <p>Topic selection follows Kafka, not the original proxy: a null topic list means all topics,
 * an empty one means none from v1 on (spec pitfall P13). A topic named by id is looked up by id
 * and the name ignored, as Kafka does (the Admin's {@code describeTopics} by id sends the name at
 * its default ""). Unknown names get UNKNOWN_TOPIC_OR_PARTITION, names Kafka would refuse
 * INVALID_TOPIC_EXCEPTION (never auto-created), unknown ids UNKNOWN_TOPIC_ID. A partition without
 * an owner gets LEADER_NOT_AVAILABLE, which clients retry.
 */
public final class MetadataResponder {
    /** Kafka's value for "authorized operations were not requested". */
    private static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;

    private final Topology topology;
    private final AdvertisedListener advertised;

    public MetadataResponder(Topology topology, AdvertisedListener advertised) {
        this.topology = topology;
        this.advertised = advertised;
    }

    /**
     * Completes with the answer. Named topics the snapshot lacks are looked up first (the source
     * may create them when the client allows auto-creation); invalid names never are.
     */
    public CompletionStage<ByteBuf> answer(RequestFrame request) {
        MetadataRequestData data = request.decodeBody(MetadataRequestData.class);
        boolean allTopics = MetadataRequests.isAllTopics(data, request.apiVersion());
        Set<String> missing = new LinkedHashSet<>();
        TopologySnapshot current = topology.snapshot();
        if (!allTopics) {
            for (MetadataRequestTopic t : data.topics()) {
                if (!namesById(t) && t.name() != null && TopicNames.isValid(t.name())
                        && current.topic(t.name()).isEmpty()) {
                    missing.add(t.name());
                }
            }
        }
        CompletionStage<TopologySnapshot> snapshot = missing.isEmpty()
                ? java.util.concurrent.CompletableFuture.completedFuture(current)
                : topology.lookupTopics(missing, data.allowAutoTopicCreation());
        return snapshot.thenApply(s -> ResponseFrames.encode(request, build(data, allTopics, s, request.apiVersion())));
    }

    /** Topic names in Metadata answers are nullable only from v12; older versions carry "". */
    public static String nameForUnknownId(short version) {
        return version >= 12 ? null : "";
    }

    /** Whether the request names this topic by id (Kafka then ignores its name). */
    private static boolean namesById(MetadataRequestTopic topic) {
        return topic.topicId() != null && !Uuid.ZERO_UUID.equals(topic.topicId());
    }

    MetadataResponseData build(MetadataRequestData request, boolean allTopics, TopologySnapshot snapshot, short version) {
        AdvertisedCluster cluster = new AdvertisedCluster(advertised, snapshot);
        MetadataResponseData response = new MetadataResponseData()
                .setThrottleTimeMs(0)
                .setClusterId(snapshot.clusterId())
                .setControllerId(cluster.controllerId())
                .setClusterAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
        for (AdvertisedCluster.Node node : cluster.nodes()) {
            response.brokers().add(new MetadataResponseBroker().setNodeId(node.id())
                    .setHost(node.host()).setPort(node.port()).setRack(node.rack()));
        }
        for (MetadataResponseTopic topic : selectTopics(request, allTopics, cluster, version)) {
            response.topics().add(topic);
        }
        return response;
    }

    private List<MetadataResponseTopic> selectTopics(MetadataRequestData request, boolean allTopics,
                                                     AdvertisedCluster cluster, short version) {
        TopologySnapshot snapshot = cluster.snapshot();
        List<MetadataResponseTopic> topics = new ArrayList<>();
        if (allTopics) {
            snapshot.topics().values().forEach(t -> topics.add(describe(t, cluster)));
            return topics;
        }
        for (MetadataRequestTopic requested : request.topics()) {
            if (namesById(requested)) {
                topics.add(snapshot.topic(requested.topicId()).map(t -> describe(t, cluster))
                        .orElseGet(() -> new MetadataResponseTopic().setName(nameForUnknownId(version))
                                .setTopicId(requested.topicId())
                                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
            } else if (requested.name() != null) {
                topics.add(snapshot.topic(requested.name()).map(t -> describe(t, cluster))
                        .orElseGet(() -> new MetadataResponseTopic().setName(requested.name())
                                .setErrorCode(unknownNameError(requested.name()).code())));
            }
        }
        return topics;
    }

    /** What a broker answers for a name it does not know: invalid names are told so. */
    static Errors unknownNameError(String name) {
        return TopicNames.isValid(name) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_TOPIC_EXCEPTION;
    }

    private MetadataResponseTopic describe(TopicLayout topic, AdvertisedCluster cluster) {
        MetadataResponseTopic out = new MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.id())
                .setIsInternal(topic.internal())
                .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
        for (PartitionLayout p : topic.partitions().values()) {
            AdvertisedCluster.Partition shown = cluster.partition(topic.name(), p);
            out.partitions().add(new MetadataResponsePartition()
                    .setPartitionIndex(p.partition())
                    .setLeaderEpoch(p.leaderEpoch())
                    .setErrorCode(shown.error().code())
                    .setLeaderId(shown.leaderId())
                    .setReplicaNodes(shown.replicas())
                    .setIsrNodes(shown.isr())
                    .setOfflineReplicas(shown.offlineReplicas()));
        }
        return out;
    }
}
