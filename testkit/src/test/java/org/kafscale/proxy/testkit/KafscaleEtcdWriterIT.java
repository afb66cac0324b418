package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KafscaleEtcdWriterIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> TOP_FIELDS = List.of("Brokers", "ControllerID", "Topics", "ClusterName", "ClusterID");
    private static final List<String> BROKER_FIELDS = List.of("NodeID", "Host", "Port", "Rack", "UnknownTags");
    private static final List<String> TOPIC_FIELDS = List.of("ErrorCode", "Topic", "TopicID", "IsInternal", "Partitions",
            "AuthorizedOperations", "UnknownTags");
    private static final List<String> PARTITION_FIELDS = List.of("ErrorCode", "Partition", "Leader", "LeaderEpoch", "Replicas",
            "ISR", "OfflineReplicas", "UnknownTags");

    private static KafkaCluster cluster;
    private static EtcdProcess etcd;
    private static Client reader;
    private static KafscaleEtcdWriter writer;
    private static Map<Integer, Integer> leaders;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(3);
        etcd = EtcdProcess.startNew();
        reader = Client.builder().endpoints(etcd.endpoint()).build();
        writer = KafscaleEtcdWriter.connect(etcd.endpoint());
        List<Integer> ids = cluster.brokerIds();
        leaders = Map.of(0, ids.get(2), 1, ids.get(0), 2, ids.get(1));
        cluster.createTopic("orders", leaders);
    }

    @AfterAll
    static void stop() {
        if (writer != null) {
            writer.close();
        }
        if (reader != null) {
            reader.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void emptyKeyspace() {
        writer.deleteAll();
    }

    @Test
    void snapshotHasGoFieldNamesRealBrokersAndTheRealTopicId() throws Exception {
        // When
        writer.publishSnapshot(cluster, List.of("orders"));

        // Then
        JsonNode snapshot = MAPPER.readTree(get(KafscaleEtcdWriter.SNAPSHOT_KEY));
        assertEquals(TOP_FIELDS, fieldNames(snapshot));
        assertEquals("kafscale", snapshot.get("ClusterName").asText());
        assertEquals(cluster.admin().describeCluster().clusterId().get(10, TimeUnit.SECONDS), snapshot.get("ClusterID").asText());
        assertEquals(cluster.brokerIds().get(0), snapshot.get("ControllerID").asInt());

        List<Integer> brokerIds = new ArrayList<>();
        for (JsonNode broker : snapshot.get("Brokers")) {
            assertEquals(BROKER_FIELDS, fieldNames(broker));
            int id = broker.get("NodeID").asInt();
            brokerIds.add(id);
            assertEquals(cluster.brokerAddress(id), broker.get("Host").asText() + ":" + broker.get("Port").asInt());
            assertTrue(broker.get("Rack").isNull());
            assertTrue(broker.get("UnknownTags").isObject() && broker.get("UnknownTags").isEmpty());
        }
        assertEquals(cluster.brokerIds(), brokerIds);

        assertEquals(1, snapshot.get("Topics").size());
        JsonNode topic = snapshot.get("Topics").get(0);
        assertEquals(TOPIC_FIELDS, fieldNames(topic));
        assertEquals("orders", topic.get("Topic").asText());
        assertFalse(topic.get("IsInternal").asBoolean());
        assertEquals(toJsonArray(KafscaleEtcdWriter.topicIdBytes(cluster.topicId("orders"))), topic.get("TopicID"));

        Map<Integer, Integer> leadersInSnapshot = new TreeMap<>();
        for (JsonNode partition : topic.get("Partitions")) {
            assertEquals(PARTITION_FIELDS, fieldNames(partition));
            int leader = partition.get("Leader").asInt();
            leadersInSnapshot.put(partition.get("Partition").asInt(), leader);
            assertEquals(MAPPER.readTree("[" + leader + "]"), partition.get("Replicas"));
            assertEquals(MAPPER.readTree("[" + leader + "]"), partition.get("ISR"));
            assertTrue(partition.get("OfflineReplicas").isNull());
        }
        assertEquals(new TreeMap<>(leaders), leadersInSnapshot);
    }

    @Test
    void consumerOffsetsTopicIsIncludedOnlyWhenAskedFor() throws Exception {
        // Given the internal topic exists (looking up a group coordinator creates it)
        cluster.admin().listConsumerGroupOffsets("probe").partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Eventually.await(Duration.ofSeconds(30), "__consumer_offsets to have leaders",
                () -> !cluster.leaders("__consumer_offsets").containsValue(KafkaCluster.NO_LEADER));

        // When / Then
        writer.publishSnapshot(cluster, List.of("orders"));
        assertEquals(List.of("orders"), topicNames(MAPPER.readTree(get(KafscaleEtcdWriter.SNAPSHOT_KEY))));

        writer.publishSnapshot(cluster, List.of("orders", "__consumer_offsets"));
        JsonNode snapshot = MAPPER.readTree(get(KafscaleEtcdWriter.SNAPSHOT_KEY));
        assertEquals(List.of("orders", "__consumer_offsets"), topicNames(snapshot));
        assertTrue(snapshot.get("Topics").get(1).get("IsInternal").asBoolean());
    }

    @Test
    void partitionLeasesHoldTheLeadersId() throws Exception {
        // When
        writer.publishPartitionLeases(cluster, List.of("orders"));

        // Then
        Map<String, String> expected = new TreeMap<>();
        leaders.forEach((partition, leader) -> expected.put("/kafscale/partition-leases/orders/" + partition, Integer.toString(leader)));
        assertEquals(expected, getPrefix("/kafscale/partition-leases/"));
    }

    @Test
    void singleLeasesAndRawValuesArePutAndDeleted() throws Exception {
        // When
        writer.putPartitionLease("orders", 7, 2);
        writer.putGroupLease("payments", 1);
        writer.publishSnapshotJson("{not json");

        // Then
        assertEquals("2", get("/kafscale/partition-leases/orders/7"));
        assertEquals("1", get("/kafscale/group-leases/payments"));
        assertEquals("{not json", get(KafscaleEtcdWriter.SNAPSHOT_KEY));

        // When
        writer.deletePartitionLease("orders", 7);
        writer.deleteGroupLease("payments");

        // Then
        assertEquals(Map.of(KafscaleEtcdWriter.SNAPSHOT_KEY, "{not json"), getPrefix("/kafscale/"));

        // When
        writer.putRaw("/elsewhere", "kept");
        writer.deleteAll();

        // Then
        assertEquals(Map.of(), getPrefix("/kafscale/"));
        assertEquals("kept", get("/elsewhere"));
    }

    private static String get(String key) throws Exception {
        Map<String, String> values = getPrefix(key);
        assertTrue(values.containsKey(key), "no key " + key + " in etcd");
        return values.get(key);
    }

    private static Map<String, String> getPrefix(String prefix) throws Exception {
        Map<String, String> values = new TreeMap<>();
        List<KeyValue> kvs = reader.getKVClient()
                .get(ByteSequence.from(prefix, StandardCharsets.UTF_8), GetOption.builder().isPrefix(true).build())
                .get(10, TimeUnit.SECONDS).getKvs();
        for (KeyValue kv : kvs) {
            values.put(kv.getKey().toString(StandardCharsets.UTF_8), kv.getValue().toString(StandardCharsets.UTF_8));
        }
        return values;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext();) {
            names.add(it.next());
        }
        return names;
    }

    private static List<String> topicNames(JsonNode snapshot) {
        List<String> names = new ArrayList<>();
        snapshot.get("Topics").forEach(topic -> names.add(topic.get("Topic").asText()));
        return names;
    }

    private static JsonNode toJsonArray(byte[] bytes) {
        var array = MAPPER.createArrayNode();
        for (byte b : bytes) {
            array.add(b & 0xFF);
        }
        return array;
    }
}
