package org.kafscale.proxy.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.DeleteOption;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * Writes a real Kafka cluster's topology into etcd in KafScale's own format (spec §2.1–2.3), so the
 * proxy can be tested against real brokers while discovering them the way it does in production.
 *
 * <p>Keys written:
 * <ul>
 *   <li>{@value #SNAPSHOT_KEY}: the JSON that Go's {@code encoding/json} makes of
 *       {@code metadata.ClusterMetadata} (Go field names, {@code TopicID} as 16 integers);</li>
 *   <li>{@value #PARTITION_LEASE_PREFIX}{@code <topic>/<partition>} and
 *       {@value #GROUP_LEASE_PREFIX}{@code <group>}: the owning broker id as decimal text.</li>
 * </ul>
 * Values are plain puts without an etcd lease: the proxy only reads them, and a test decides when
 * they go away. Every call completes synchronously within {@value #CALL_SECONDS} s or throws an
 * {@link IllegalStateException} naming the key and the endpoint.
 */
public final class KafscaleEtcdWriter implements AutoCloseable {
    private static final java.time.Duration DESCRIBE_DEADLINE = java.time.Duration.ofSeconds(30);

    public static final String ROOT_PREFIX = "/kafscale/";
    public static final String SNAPSHOT_KEY = "/kafscale/metadata/snapshot";
    public static final String PARTITION_LEASE_PREFIX = "/kafscale/partition-leases/";
    public static final String GROUP_LEASE_PREFIX = "/kafscale/group-leases/";
    /** The operator's default {@code ClusterName}. */
    public static final String CLUSTER_NAME = "kafscale";

    private static final long CALL_SECONDS = 10;
    private static final JsonFactory JSON = new JsonFactory();

    private final String endpoint;
    private final Client client;
    private final KV kv;

    private KafscaleEtcdWriter(String endpoint, Client client) {
        this.endpoint = endpoint;
        this.client = client;
        this.kv = client.getKVClient();
    }

    /** A writer for the etcd at {@code etcdEndpoint} (with scheme, as {@link EtcdProcess#endpoint()}). */
    public static KafscaleEtcdWriter connect(String etcdEndpoint) {
        return new KafscaleEtcdWriter(etcdEndpoint, Client.builder().endpoints(etcdEndpoint).build());
    }

    // ---- snapshot ------------------------------------------------------------------------------

    /**
     * Writes the snapshot of {@code cluster}: its brokers, and {@code topics} in the given order
     * (an internal topic such as {@code __consumer_offsets} only when named). See {@link #snapshotJson}.
     */
    public void publishSnapshot(KafkaCluster cluster, Collection<String> topics) {
        publishSnapshotJson(snapshotJson(cluster, topics));
    }

    /**
     * Like {@link #publishSnapshot(KafkaCluster, Collection)}, but broker {@code id} is listed at
     * {@code addressOverrides.get(id)} ("host:port") instead of the address it advertises, so the
     * proxy dials that address (for example a {@link FaultyRelay} in front of the broker).
     */
    public void publishSnapshot(KafkaCluster cluster, Collection<String> topics, Map<Integer, String> addressOverrides) {
        publishSnapshotJson(snapshotJson(cluster, topics, addressOverrides));
    }

    /** Writes {@code rawJson} as the snapshot value, unchecked: a test may publish a corrupt snapshot. */
    public void publishSnapshotJson(String rawJson) {
        putRaw(SNAPSHOT_KEY, rawJson);
    }

    /**
     * The snapshot value {@link #publishSnapshot} writes, for tests that want to alter it first.
     *
     * <ul>
     *   <li>Brokers: every broker of the cluster, ascending id, at the address it advertises.</li>
     *   <li>ControllerID: the lowest broker id (KRaft's controller is no broker; clients are told
     *       some broker, so a fixed choice keeps snapshots reproducible).</li>
     *   <li>TopicID: the real Kafka topic id, so topic-id requests through the proxy match the brokers.</li>
     *   <li>Partitions: leader ({@code -1} if none), replicas and ISR as the admin client describes
     *       them; LeaderEpoch as the brokers hold it now (a snapshot whose epochs lag the brokers'
     *       makes consumers loop on FENCED_LEADER_EPOCH until it is rewritten).</li>
     *   <li>ClusterName {@value #CLUSTER_NAME}; ClusterID the Kafka cluster id.</li>
     * </ul>
     */
    public static String snapshotJson(KafkaCluster cluster, Collection<String> topics) {
        return snapshotJson(cluster, topics, Map.of());
    }

    /**
     * The snapshot {@link #snapshotJson(KafkaCluster, Collection)} renders, with the Host and Port
     * of each broker named in {@code addressOverrides} taken from its "host:port" value.
     *
     * @throws IllegalArgumentException if an override names no broker of the cluster or is not host:port
     */
    public static String snapshotJson(KafkaCluster cluster, Collection<String> topics, Map<Integer, String> addressOverrides) {
        List<Integer> knownIds = cluster.brokerIds();
        addressOverrides.forEach((id, address) -> {
            if (!knownIds.contains(id)) {
                throw new IllegalArgumentException("address override for broker " + id + ", but brokers are " + knownIds);
            }
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || colon == address.length() - 1) {
                throw new IllegalArgumentException("address override for broker " + id + " must be host:port, got '" + address + "'");
            }
        });
        Admin admin = cluster.admin();
        List<String> names = List.copyOf(new LinkedHashSet<>(topics));
        Map<String, TopicDescription> descriptions = new java.util.HashMap<>();
        if (!names.isEmpty()) {
            // A topic just created may not be known yet to the broker the admin client asks
            // (UNKNOWN_TOPIC_OR_PARTITION, seen under load): asked again until every one is.
            Eventually.await(DESCRIBE_DEADLINE, "the brokers to describe " + names,
                    () -> descriptions.putAll(ClusterMetadata.call(admin.describeTopics(names).allTopicNames())));
        }
        DescribeClusterResult described = admin.describeCluster();
        String clusterId = ClusterMetadata.call(described.clusterId());
        List<Integer> brokerIds = cluster.brokerIds();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = goJsonGenerator(out)) {
            json.writeStartObject();
            json.writeArrayFieldStart("Brokers");
            for (int id : brokerIds) {
                writeBroker(json, id, addressOverrides.getOrDefault(id, cluster.brokerAddress(id)));
            }
            json.writeEndArray();
            json.writeNumberField("ControllerID", brokerIds.isEmpty() ? -1 : brokerIds.get(0));
            json.writeArrayFieldStart("Topics");
            for (String name : names) {
                writeTopic(json, descriptions.get(name), cluster);
            }
            json.writeEndArray();
            json.writeStringField("ClusterName", CLUSTER_NAME);
            json.writeStringField("ClusterID", clusterId);
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot render the snapshot JSON", e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void writeBroker(JsonGenerator json, int id, String address) throws IOException {
        int colon = address.lastIndexOf(':');
        json.writeStartObject();
        json.writeNumberField("NodeID", id);
        json.writeStringField("Host", address.substring(0, colon));
        json.writeNumberField("Port", Integer.parseInt(address.substring(colon + 1)));
        json.writeNullField("Rack");
        writeUnknownTags(json);
        json.writeEndObject();
    }

    private static void writeTopic(JsonGenerator json, TopicDescription topic, KafkaCluster cluster) throws IOException {
        json.writeStartObject();
        json.writeNumberField("ErrorCode", 0);
        json.writeStringField("Topic", topic.name());
        json.writeFieldName("TopicID");
        writeByteArray(json, topicIdBytes(topic.topicId()));
        json.writeBooleanField("IsInternal", topic.isInternal());
        json.writeArrayFieldStart("Partitions");
        List<TopicPartitionInfo> partitions = new ArrayList<>(topic.partitions());
        partitions.sort(Comparator.comparingInt(TopicPartitionInfo::partition));
        for (TopicPartitionInfo partition : partitions) {
            writePartition(json, partition, cluster.leaderEpoch(topic.name(), partition.partition()));
        }
        json.writeEndArray();
        json.writeNumberField("AuthorizedOperations", 0);
        writeUnknownTags(json);
        json.writeEndObject();
    }

    private static void writePartition(JsonGenerator json, TopicPartitionInfo partition, int leaderEpoch)
            throws IOException {
        json.writeStartObject();
        json.writeNumberField("ErrorCode", 0);
        json.writeNumberField("Partition", partition.partition());
        json.writeNumberField("Leader", leaderId(partition));
        json.writeNumberField("LeaderEpoch", leaderEpoch);
        json.writeFieldName("Replicas");
        writeNodeIds(json, partition.replicas());
        json.writeFieldName("ISR");
        writeNodeIds(json, partition.isr());
        json.writeNullField("OfflineReplicas");
        writeUnknownTags(json);
        json.writeEndObject();
    }

    private static void writeNodeIds(JsonGenerator json, List<Node> nodes) throws IOException {
        json.writeStartArray();
        for (Node node : nodes) {
            json.writeNumber(node.id());
        }
        json.writeEndArray();
    }

    /** A Go {@code [16]byte} is an array, so encoding/json writes numbers (a slice would be base64). */
    private static void writeByteArray(JsonGenerator json, byte[] bytes) throws IOException {
        json.writeStartArray();
        for (byte b : bytes) {
            json.writeNumber(b & 0xFF);
        }
        json.writeEndArray();
    }

    private static void writeUnknownTags(JsonGenerator json) throws IOException {
        json.writeObjectFieldStart("UnknownTags");
        json.writeEndObject();
    }

    // ---- leases --------------------------------------------------------------------------------

    /**
     * Writes the partition lease of every partition of {@code topics}: the current leader's id.
     * A partition without a leader has no owner, so its lease key is deleted instead.
     */
    public void publishPartitionLeases(KafkaCluster cluster, Collection<String> topics) {
        for (String topic : new LinkedHashSet<>(topics)) {
            cluster.leaders(topic).forEach((partition, leader) -> {
                if (leader == KafkaCluster.NO_LEADER) {
                    deletePartitionLease(topic, partition);
                } else {
                    putPartitionLease(topic, partition, leader);
                }
            });
        }
    }

    public void putPartitionLease(String topic, int partition, int brokerId) {
        putRaw(partitionLeaseKey(topic, partition), Integer.toString(brokerId));
    }

    public void deletePartitionLease(String topic, int partition) {
        delete(partitionLeaseKey(topic, partition), false);
    }

    public void putGroupLease(String group, int brokerId) {
        putRaw(groupLeaseKey(group), Integer.toString(brokerId));
    }

    public void deleteGroupLease(String group) {
        delete(groupLeaseKey(group), false);
    }

    public static String partitionLeaseKey(String topic, int partition) {
        return PARTITION_LEASE_PREFIX + topic + "/" + partition;
    }

    public static String groupLeaseKey(String group) {
        return GROUP_LEASE_PREFIX + group;
    }

    // ---- raw access ----------------------------------------------------------------------------

    /** Puts {@code value} (UTF-8) at {@code key}. */
    public void putRaw(String key, String value) {
        putRaw(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Puts arbitrary bytes (not necessarily UTF-8) at {@code key}. */
    public void putRaw(String key, byte[] value) {
        await("put " + key, kv.put(bytes(key), ByteSequence.from(value)));
    }

    /** Deletes every key under {@value #ROOT_PREFIX}. */
    public void deleteAll() {
        delete(ROOT_PREFIX, true);
    }

    private void delete(String key, boolean prefix) {
        await("delete " + key + (prefix ? "*" : ""), kv.delete(bytes(key), DeleteOption.builder().isPrefix(prefix).build()));
    }

    @Override
    public void close() {
        client.close();
    }

    // ---- topic ids -----------------------------------------------------------------------------

    /** The 16 bytes of a Kafka topic id: most significant bits, then least, both big-endian. */
    public static byte[] topicIdBytes(Uuid id) {
        return ByteBuffer.allocate(16)
                .putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits())
                .array();
    }

    /** KafScale's {@code TopicIDForName}: the first 16 bytes of SHA-1(name), used when TopicID is missing or zero. */
    public static Uuid derivedTopicId(String name) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-1").digest(name.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
        ByteBuffer buffer = ByteBuffer.wrap(digest, 0, 16);
        return new Uuid(buffer.getLong(), buffer.getLong());
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static int leaderId(TopicPartitionInfo partition) {
        Node leader = partition.leader();
        return leader == null || leader.isEmpty() ? KafkaCluster.NO_LEADER : leader.id();
    }

    private void await(String what, CompletableFuture<?> call) {
        try {
            call.get(CALL_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during etcd " + what + " at " + endpoint, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("etcd " + what + " at " + endpoint + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IllegalStateException("etcd " + what + " at " + endpoint + " did not complete within " + CALL_SECONDS + " s", e);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** {@code text} as a JSON string literal the way Go's encoding/json writes it. */
    static String goJsonString(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = goJsonGenerator(out)) {
            json.writeString(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    static JsonGenerator goJsonGenerator(ByteArrayOutputStream out) throws IOException {
        JsonGenerator json = JSON.createGenerator(out);
        json.setCharacterEscapes(GoStringEscapes.INSTANCE);
        return json;
    }

    /**
     * String escaping as Go's {@code encoding/json} Marshal does it (Go 1.22+): {@code \"},
     * {@code \\}, {@code \b \f \n \r \t}, other control characters as lowercase
     * four-digit hex escapes, and (HTML-safe) {@code < > &} and U+2028/U+2029 as hex escapes too.
     */
    static final class GoStringEscapes extends CharacterEscapes {

        static final GoStringEscapes INSTANCE = new GoStringEscapes();
        private static final long serialVersionUID = 1L;
        private static final int[] ASCII = standardAsciiEscapesForJSON();

        static {
            for (int ch = 0; ch < 0x20; ch++) {
                ASCII[ch] = ESCAPE_CUSTOM;
            }
            ASCII['<'] = ESCAPE_CUSTOM;
            ASCII['>'] = ESCAPE_CUSTOM;
            ASCII['&'] = ESCAPE_CUSTOM;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ASCII;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            switch (ch) {
                case '\b': return new SerializedString("\\b");
                case '\f': return new SerializedString("\\f");
                case '\n': return new SerializedString("\\n");
                case '\r': return new SerializedString("\\r");
                case '\t': return new SerializedString("\\t");
                default:
                    if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&' || ch == 0x2028 || ch == 0x2029) {
                        return new SerializedString(String.format("\\u%04x", ch));
                    }
                    return null;
            }
        }
    }
}
