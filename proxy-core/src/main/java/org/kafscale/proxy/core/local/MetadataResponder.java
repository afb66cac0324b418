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
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Answers Metadata from the topology, with every broker at the proxy's advertised address.
 *
 * <p>Topic selection follows Kafka, not the original proxy: a null topic list means all topics,
 * an empty one means none from v1 on (spec pitfall P13). Unknown names get UNKNOWN_TOPIC_OR_PARTITION,
 * unknown ids UNKNOWN_TOPIC_ID. A partition without an owner gets LEADER_NOT_AVAILABLE, which
 * clients retry.
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
     * may create them when the client allows auto-creation).
     */
    public CompletionStage<ByteBuf> answer(RequestFrame request) {
        MetadataRequestData data = request.decodeBody(MetadataRequestData.class);
        boolean allTopics = MetadataRequests.isAllTopics(data, request.apiVersion());
        Set<String> missing = new LinkedHashSet<>();
        TopologySnapshot current = topology.snapshot();
        if (!allTopics) {
            for (MetadataRequestTopic t : data.topics()) {
                if (t.name() != null && current.topic(t.name()).isEmpty()) {
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

    MetadataResponseData build(MetadataRequestData request, boolean allTopics, TopologySnapshot snapshot, short version) {
        MetadataResponseData response = new MetadataResponseData()
                .setThrottleTimeMs(0)
                .setClusterId(snapshot.clusterId())
                .setControllerId(controllerId(snapshot))
                .setClusterAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
        addBrokers(response, snapshot);
        for (MetadataResponseTopic topic : selectTopics(request, allTopics, snapshot, version)) {
            response.topics().add(topic);
        }
        return response;
    }

    private void addBrokers(MetadataResponseData response, TopologySnapshot snapshot) {
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            if (snapshot.hasBrokers()) {
                response.brokers().add(new MetadataResponseBroker().setNodeId(AdvertisedListener.SINGLE_NODE_ID)
                        .setHost(advertised.host()).setPort(advertised.port()));
            }
            return;
        }
        for (BrokerEndpoint broker : snapshot.brokers().values()) {
            response.brokers().add(new MetadataResponseBroker().setNodeId(broker.id())
                    .setHost(advertised.host()).setPort(advertised.port()).setRack(broker.rack()));
        }
    }

    private int controllerId(TopologySnapshot snapshot) {
        if (!snapshot.hasBrokers()) {
            return -1;
        }
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            return AdvertisedListener.SINGLE_NODE_ID;
        }
        return snapshot.brokers().containsKey(snapshot.controllerId())
                ? snapshot.controllerId() : snapshot.brokerIds().get(0);
    }

    private List<MetadataResponseTopic> selectTopics(MetadataRequestData request, boolean allTopics,
                                                     TopologySnapshot snapshot, short version) {
        List<MetadataResponseTopic> topics = new ArrayList<>();
        if (allTopics) {
            snapshot.topics().values().forEach(t -> topics.add(describe(t, snapshot)));
            return topics;
        }
        for (MetadataRequestTopic requested : request.topics()) {
            if (requested.name() != null) {
                topics.add(snapshot.topic(requested.name()).map(t -> describe(t, snapshot))
                        .orElseGet(() -> new MetadataResponseTopic().setName(requested.name())
                                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())));
            } else if (requested.topicId() != null && !Uuid.ZERO_UUID.equals(requested.topicId())) {
                topics.add(snapshot.topic(requested.topicId()).map(t -> describe(t, snapshot))
                        .orElseGet(() -> new MetadataResponseTopic().setName(nameForUnknownId(version))
                                .setTopicId(requested.topicId())
                                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
            }
        }
        return topics;
    }

    private MetadataResponseTopic describe(TopicLayout topic, TopologySnapshot snapshot) {
        MetadataResponseTopic out = new MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.id())
                .setIsInternal(topic.internal())
                .setTopicAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
        for (PartitionLayout p : topic.partitions().values()) {
            out.partitions().add(describe(topic.name(), p, snapshot));
        }
        return out;
    }

    private MetadataResponsePartition describe(String topic, PartitionLayout p, TopologySnapshot snapshot) {
        MetadataResponsePartition out = new MetadataResponsePartition()
                .setPartitionIndex(p.partition())
                .setLeaderEpoch(p.leaderEpoch());
        boolean owned = snapshot.owner(topic, p.partition()).isPresent();
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            List<Integer> single = List.of(AdvertisedListener.SINGLE_NODE_ID);
            return out.setErrorCode(owned ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                    .setLeaderId(owned ? AdvertisedListener.SINGLE_NODE_ID : -1)
                    .setReplicaNodes(single).setIsrNodes(owned ? single : List.of()).setOfflineReplicas(List.of());
        }
        List<Integer> replicas = p.replicas().isEmpty() && owned ? List.of(p.owner()) : p.replicas();
        List<Integer> isr = p.isr().isEmpty() && owned ? List.of(p.owner()) : p.isr();
        return out.setErrorCode(owned ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                .setLeaderId(owned ? p.owner() : -1)
                .setReplicaNodes(replicas).setIsrNodes(isr).setOfflineReplicas(p.offlineReplicas());
    }
}
