package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;

/**
 * A large volume through the proxy's fan-out: twelve partitions, four led by each of three
 * brokers, so that in single mode nearly every Produce and Fetch is split in three and merged,
 * and in brokers mode the clients' own per-broker requests pass through; with the topology read
 * from the cluster itself and from KafScale's etcd keys. Nothing may be lost, duplicated or
 * reordered within a partition.
 */
class FanOutExactlyOnceIT {
    private static final int PARTITIONS = 12;
    private static final int RECORDS = 100_000;

    private static KafkaCluster cluster;
    private static EtcdProcess etcd;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(3);
        etcd = EtcdProcess.startNew();
    }

    @AfterAll
    static void stopCluster() {
        etcd.close();
        cluster.close();
    }

    @ParameterizedTest(name = "topology from {0}, advertise mode {1}")
    @CsvSource({"kafka, brokers", "kafka, ports", "kafka, single", "etcd, brokers", "etcd, single"})
    void hundredThousandRecordsOverTwelvePartitionsOnThreeBrokersArriveExactlyOnceInOrder(String source, String mode)
            throws Exception {
        // Given: twelve single-replica partitions, four led by each broker
        String topic = "fan-out-" + source + "-" + mode;
        String group = "fan-out-group-" + source + "-" + mode;
        cluster.createTopic(topic, RecordRoundTrip.leadersRoundRobin(cluster.brokerIds(), PARTITIONS));
        Map<Integer, Integer> fourEach = new HashMap<>();
        cluster.brokerIds().forEach(broker -> fourEach.put(broker, 4));
        assertEquals(fourEach, partitionsPerBroker(cluster.leaders(topic).values()), "partitions led by each broker");
        try (RunningProxy proxy = start(source, mode, topic, group)) {
            // When: an idempotent acks=all producer and a consumer group move them through the proxy
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, PARTITIONS, RECORDS);
            Map<Integer, List<String>> received =
                    RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), topic, group, RECORDS);
            // Then
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
        }
    }

    /** A proxy on the plain-Kafka topology, or on KafScale's etcd keys describing the same cluster. */
    private static RunningProxy start(String source, String mode, String topic, String group) {
        if (source.equals("kafka")) {
            return RunningProxy.start(cluster, mode);
        }
        try (KafscaleEtcdWriter kafscale = KafscaleEtcdWriter.connect(etcd.endpoint())) {
            kafscale.publishSnapshot(cluster, List.of(topic));
            kafscale.publishPartitionLeases(cluster, List.of(topic));
            kafscale.putGroupLease(group, cluster.groupCoordinator(group));
        }
        return RunningProxy.startOnEtcd(cluster, mode, etcd.endpoint());
    }

    private static Map<Integer, Integer> partitionsPerBroker(Collection<Integer> leaders) {
        Map<Integer, Integer> counts = new HashMap<>();
        leaders.forEach(broker -> counts.merge(broker, 1, Integer::sum));
        return counts;
    }
}
