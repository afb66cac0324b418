package org.kafscale.proxy.discovery.etcd;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * A parsed KafScale metadata snapshot: brokers and topics, without owners (those come from the
 * partition leases).
 *
 * @param clusterId the cluster id, or null
 * @param controllerId the controller id, or -1
 * @param brokers brokers with a host and a port (others are skipped, as in the original)
 * @param topics topics with their ids and partitions
 */
record KafscaleSnapshot(String clusterId, int controllerId, List<BrokerEndpoint> brokers, List<Topic> topics) {

    static final KafscaleSnapshot NONE = new KafscaleSnapshot(null, -1, List.of(), List.of());

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    record Topic(String name, Uuid id, boolean internal, List<SnapshotDocument.Partition> partitions) {
    }

    /**
     * Parses the snapshot's JSON.
     *
     * @throws IOException when it is not a snapshot; the caller keeps its last good one
     */
    static KafscaleSnapshot parse(byte[] json) throws IOException {
        SnapshotDocument doc = JSON.readValue(json, SnapshotDocument.class);
        if (doc == null) {
            throw new IOException("snapshot is JSON null");
        }
        List<BrokerEndpoint> brokers = new ArrayList<>();
        for (SnapshotDocument.Broker b : nullToEmpty(doc.brokers())) {
            if (b.host() != null && !b.host().isBlank() && b.port() > 0 && b.port() <= 65535) {
                brokers.add(new BrokerEndpoint(b.nodeId(), b.host(), b.port(), b.rack()));
            }
        }
        List<Topic> topics = new ArrayList<>();
        for (SnapshotDocument.Topic t : nullToEmpty(doc.topics())) {
            if (t.name() == null || t.name().isEmpty()) {
                throw new IOException("snapshot lists a topic without a name");
            }
            List<SnapshotDocument.Partition> partitions = nullToEmpty(t.partitions());
            checkNoNulls(t.name(), partitions);
            topics.add(new Topic(t.name(), topicId(t.name(), t.topicId()), t.internal(), partitions));
        }
        return new KafscaleSnapshot(doc.clusterId(), doc.controllerId() == null ? -1 : doc.controllerId(),
                brokers, topics);
    }

    /**
     * A JSON null where a partition or a broker id belongs would pass Jackson and then break the
     * topology built from it (a read that fails on every try, and the TTL gate closing) instead
     * of being refused here, where the last good snapshot is kept.
     */
    private static void checkNoNulls(String topic, List<SnapshotDocument.Partition> partitions) throws IOException {
        for (SnapshotDocument.Partition p : partitions) {
            if (p == null) {
                throw new IOException("topic " + topic + " lists a null partition");
            }
            for (List<Integer> ids : Arrays.asList(p.replicas(), p.isr(), p.offlineReplicas())) {
                if (ids != null && ids.contains(null)) {
                    throw new IOException("topic " + topic + " partition " + p.partition() + " lists a null broker id");
                }
            }
        }
    }

    /** The snapshot's id, or KafScale's derived one (first 16 bytes of SHA-1 of the name) when missing or zero. */
    static Uuid topicId(String name, int[] idBytes) throws IOException {
        if (idBytes != null && idBytes.length != 16) {
            throw new IOException("topic " + name + " has a TopicID of " + idBytes.length + " bytes, not 16");
        }
        if (idBytes == null || Arrays.stream(idBytes).allMatch(b -> b == 0)) {
            return derivedTopicId(name);
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < 16; i++) {
            if (idBytes[i] < 0 || idBytes[i] > 255) {
                throw new IOException("topic " + name + " has a TopicID byte out of range: " + idBytes[i]);
            }
            bytes[i] = (byte) idBytes[i];
        }
        return uuidOf(bytes);
    }

    static Uuid derivedTopicId(String name) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest(name.getBytes(StandardCharsets.UTF_8));
            return uuidOf(Arrays.copyOf(sha1, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every JRE", e);
        }
    }

    private static Uuid uuidOf(byte[] bytes) {
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = (msb << 8) | (bytes[i] & 0xff);
            lsb = (lsb << 8) | (bytes[i + 8] & 0xff);
        }
        return new Uuid(msb, lsb);
    }

    /**
     * The topology of this snapshot's topics on {@code brokers}, with each partition's owner from
     * {@code owners} (topic, then partition, to broker id; from the partition leases).
     */
    TopologySnapshot topology(List<BrokerEndpoint> brokers, Map<String, Map<Integer, Integer>> owners) {
        List<TopicLayout> layouts = new ArrayList<>();
        for (Topic t : topics) {
            Map<Integer, Integer> topicOwners = owners.getOrDefault(t.name(), Map.of());
            Map<Integer, PartitionLayout> partitions = new HashMap<>();
            t.partitions().forEach(p -> partitions.put(p.partition(), new PartitionLayout(p.partition(),
                    topicOwners.getOrDefault(p.partition(), PartitionLayout.NO_OWNER), p.leaderEpoch(),
                    nullToEmpty(p.replicas()), nullToEmpty(p.isr()), nullToEmpty(p.offlineReplicas()))));
            layouts.add(TopicLayout.of(t.name(), t.id(), t.internal(), partitions));
        }
        return TopologySnapshot.of(clusterId, controllerId, brokers, layouts);
    }

    private static <T> List<T> nullToEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
