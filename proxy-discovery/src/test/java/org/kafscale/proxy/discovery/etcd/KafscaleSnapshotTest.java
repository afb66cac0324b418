package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

class KafscaleSnapshotTest {

    private static KafscaleSnapshot parse(String json) throws IOException {
        return KafscaleSnapshot.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheOperatorsSnapshotWithGoFieldNames() throws IOException {
        // Given: the shape Go's encoding/json writes for metadata.ClusterMetadata
        String json = "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"b0.svc\",\"Port\":9092,\"Rack\":null,\"UnknownTags\":{}}],"
                + "\"ControllerID\":0,\"Topics\":[{\"ErrorCode\":0,\"Topic\":\"orders\","
                + "\"TopicID\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,255],\"IsInternal\":false,"
                + "\"Partitions\":[{\"ErrorCode\":0,\"Partition\":0,\"Leader\":0,\"LeaderEpoch\":3,\"Replicas\":[0],"
                + "\"ISR\":[0],\"OfflineReplicas\":null,\"UnknownTags\":{}}],\"AuthorizedOperations\":0,\"UnknownTags\":{}}],"
                + "\"ClusterName\":\"kafscale\",\"ClusterID\":\"uid-1\"}";
        // When
        KafscaleSnapshot snapshot = parse(json);
        // Then
        assertEquals("uid-1", snapshot.clusterId());
        assertEquals(List.of(new BrokerEndpoint(0, "b0.svc", 9092, null)), snapshot.brokers());
        KafscaleSnapshot.Topic orders = snapshot.topics().get(0);
        assertEquals("orders", orders.name());
        assertEquals(new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0fffL), orders.id());
        assertEquals(3, orders.partitions().get(0).leaderEpoch());
    }

    @Test
    void fieldNamesMatchCaseInsensitivelyAsGoDoes() throws IOException {
        KafscaleSnapshot snapshot = parse("{\"brokers\":[{\"nodeid\":4,\"HOST\":\"h\",\"port\":1}],\"clusterid\":\"c\"}");
        assertEquals(List.of(new BrokerEndpoint(4, "h", 1, null)), snapshot.brokers());
        assertEquals("c", snapshot.clusterId());
    }

    @Test
    void missingOrZeroTopicIdIsDerivedFromSha1OfTheName() throws Exception {
        byte[] sha1 = MessageDigest.getInstance("SHA-1").digest("orders".getBytes(StandardCharsets.UTF_8));
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = (msb << 8) | (sha1[i] & 0xff);
            lsb = (lsb << 8) | (sha1[i + 8] & 0xff);
        }
        Uuid expected = new Uuid(msb, lsb);
        assertEquals(expected, parse("{\"Topics\":[{\"Topic\":\"orders\"}]}").topics().get(0).id());
        assertEquals(expected, parse("{\"Topics\":[{\"Topic\":\"orders\",\"TopicID\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}]}")
                .topics().get(0).id());
    }

    @Test
    void brokersWithoutHostOrPortAreSkippedAsTheOriginalDoes() throws IOException {
        KafscaleSnapshot snapshot = parse("{\"Brokers\":[{\"NodeID\":0,\"Host\":\"\",\"Port\":9092},"
                + "{\"NodeID\":1,\"Host\":\"b1\",\"Port\":0},{\"NodeID\":2,\"Host\":\"b2\",\"Port\":9092}]}");
        assertEquals(List.of(2), snapshot.brokers().stream().map(BrokerEndpoint::id).toList());
    }

    @Test
    void truncatedJsonIsRejected() {
        assertThrows(IOException.class, () -> parse("{\"Brokers\": [ {\"NodeID\": "));
    }

    @Test
    void topicIdOfTheWrongLengthIsRejectedRatherThanGuessed() {
        IOException e = assertThrows(IOException.class, () -> parse("{\"Topics\":[{\"Topic\":\"t\",\"TopicID\":[1,2,3]}]}"));
        assertTrue(e.getMessage().contains("3 bytes"), e.getMessage());
    }

    @Test
    void aNullPartitionIsRejectedSoTheLastGoodSnapshotIsKept() {
        // Given a snapshot that Jackson reads, with null where a partition belongs (found by fuzzing)
        String json = "{\"Topics\":[{\"Topic\":\"t\",\"Partitions\":[null]}]}";
        // When it is parsed, then it is refused as not a snapshot (before, building its topology threw)
        IOException e = assertThrows(IOException.class, () -> parse(json));
        assertTrue(e.getMessage().contains("null partition"), e.getMessage());
    }

    @Test
    void aNullBrokerIdInAReplicaListIsRejectedSoTheLastGoodSnapshotIsKept() {
        // Given a snapshot whose ISR lists null (found by fuzzing)
        String json = "{\"Topics\":[{\"Topic\":\"t\",\"Partitions\":[{\"Partition\":0,\"ISR\":[0,null]}]}]}";
        // When it is parsed, then it is refused (before, the topology's List.copyOf threw on every read)
        IOException e = assertThrows(IOException.class, () -> parse(json));
        assertTrue(e.getMessage().contains("null broker id"), e.getMessage());
    }
}
