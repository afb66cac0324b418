package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.FreePorts;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;
import org.kafscale.proxy.testkit.Eventually;

/**
 * The proxy routes from KafScale's etcd keys (snapshot, partition and group leases) that describe
 * a real three-broker cluster, and follows changes to them.
 */
class EtcdTopologyIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(3);
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @BeforeEach
    void freshKeyspace() {
        BACKENDS.kafscale().deleteAll();
    }

    static RunningProxy proxyOnEtcd() {
        return RunningProxy.startOnEtcd(BACKENDS.cluster(), "brokers", BACKENDS.etcd().endpoint());
    }

    /** Publishes the topics and leases of the real BACKENDS.cluster(), and the group's real coordinator as its lease. */
    private static void publish(List<String> topics, String group) throws Exception {
        BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), topics);
        BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), topics);
        if (group != null) {
            BACKENDS.kafscale().putGroupLease(group, BACKENDS.cluster().groupCoordinator(group));
        }
    }

    private static List<Integer> spreadLeaders(String topic) {
        List<Integer> brokers = BACKENDS.cluster().brokerIds();
        BACKENDS.cluster().createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        return brokers;
    }

    @Test
    void producesAndConsumesWithRoutesFromEtcd() throws Exception {
        // Given
        spreadLeaders("etcd-orders");
        publish(List.of("etcd-orders"), "etcd-orders-group");
        try (RunningProxy proxy = proxyOnEtcd()) {
            // When
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), "etcd-orders", 3, 3_000);
            Map<Integer, List<String>> received =
                    RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), "etcd-orders", "etcd-orders-group", 3_000);
            // Then
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
        }
    }

    @Test
    void leaseMovedToABrokerThatDoesNotLeadIsDroppedAndTheClientSeesNoFailure() throws Exception {
        // Given: partition 0 led by the first broker, as its lease says
        List<Integer> brokers = BACKENDS.cluster().brokerIds();
        BACKENDS.cluster().createTopic("moving", Map.of(0, brokers.get(0)));
        publish(List.of("moving"), null);
        try (RunningProxy proxy = proxyOnEtcd(); KafkaProducer<String, String> producer = producer(proxy)) {
            producer.send(new ProducerRecord<>("moving", 0, "k", "before")).get(30, TimeUnit.SECONDS);
            // When: the lease names a broker that does not lead the partition, and the proxy has seen it
            BACKENDS.kafscale().putPartitionLease("moving", 0, brokers.get(1));
            Eventually.await(DEADLINE, "the proxy routes moving-0 to the lease's broker",
                    () -> assertEquals(brokers.get(1), leaderThroughProxy(proxy, "moving")));
            Future<RecordMetadata> during = producer.send(new ProducerRecord<>("moving", 0, "k", "during"));
            // Then: the broker's NOT_LEADER_OR_FOLLOWER reaches the proxy, which drops the route
            logs.awaitLine(DEADLINE, "does not lead moving-0 (NOT_LEADER_OR_FOLLOWER); dropping the route");
            // When: the next snapshot of the leases is right again
            BACKENDS.kafscale().putPartitionLease("moving", 0, brokers.get(0));
            // Then: the client's send succeeds, and both records are there once, in order
            during.get(60, TimeUnit.SECONDS);
            Map<Integer, List<String>> received = RecordRoundTrip.consumeFromStart(proxy.bootstrap(), "moving", 1, 2);
            assertEquals(List.of("before", "during"), received.get(0));
        }
    }

    @Test
    void snapshotPublishedAfterStartIsPickedUp() throws Exception {
        // Given: a proxy started before etcd holds any KafScale keys
        spreadLeaders("late");
        try (RunningProxy proxy = proxyOnEtcd()) {
            assertEquals(503, proxy.healthStatus("/readyz"), "no broker known yet");
            // When
            publish(List.of("late"), "late-group");
            // Then
            Eventually.await(DEADLINE, "/readyz turns 200", () -> proxy.healthStatus("/readyz") == 200);
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), "late", 3, 30);
            RecordRoundTrip.assertExactlyOnceInOrder(sent,
                    RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), "late", "late-group", 30));
        }
    }

    @Test
    void snapshotListingZeroBrokersMakesTheProxyNotReady() throws Exception {
        // Given
        spreadLeaders("emptied");
        publish(List.of("emptied"), null);
        try (RunningProxy proxy = proxyOnEtcd()) {
            Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
            // When: a successful read lists no broker
            BACKENDS.kafscale().publishSnapshotJson("{\"Brokers\":[],\"ControllerID\":-1,\"Topics\":[],\"ClusterID\":\"empty\"}");
            // Then: "no backend", never "use the cache"
            Eventually.await(DEADLINE, "/readyz 503", () -> proxy.healthStatus("/readyz") == 503);
            try (RawKafkaConnection connection = new RawKafkaConnection(proxy.port())) {
                MetadataResponse metadata = connection.send(new MetadataRequest.Builder(List.of("emptied"), false)
                        .build((short) 12));
                assertTrue(metadata.data().brokers().isEmpty(), "no brokers advertised");
                assertEquals(Errors.REQUEST_TIMED_OUT.code(), metadata.data().topics().find("emptied").errorCode());
                assertTrue(connection.closedByProxy(), "the connection closes after the not-ready answer");
            }
        }
    }

    @Test
    void corruptSnapshotLeavesTheLastGoodOneInForce() throws Exception {
        // Given
        List<Integer> brokers = BACKENDS.cluster().brokerIds();
        BACKENDS.cluster().createTopic("sturdy", Map.of(0, brokers.get(2)));
        publish(List.of("sturdy"), null);
        try (RunningProxy proxy = proxyOnEtcd(); KafkaProducer<String, String> producer = producer(proxy)) {
            producer.send(new ProducerRecord<>("sturdy", 0, "k", "first")).get(30, TimeUnit.SECONDS);
            // When
            BACKENDS.kafscale().publishSnapshotJson("{\"Brokers\": [ {\"NodeID\": ");
            // Then: logged and ignored; the proxy keeps routing on the last good snapshot
            logs.awaitLine(DEADLINE, "does not parse");
            producer.send(new ProducerRecord<>("sturdy", 0, "k", "second")).get(30, TimeUnit.SECONDS);
            Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
            assertTrue(proxy.healthBody("/metrics").contains("kafscale_proxy_etcd_bad_data_total{kind=\"snapshot\"} 1.0"),
                    "the bad snapshot is counted once");
            assertEquals(List.of("first", "second"),
                    RecordRoundTrip.consumeFromStart(proxy.bootstrap(), "sturdy", 1, 2).get(0));
        }
    }

    @ParameterizedTest(name = "{0} connection attempts: {1} of three requests refused")
    @CsvSource({"6, 0", "1, 1"})
    void requestsForAnyBrokerMoveOnFromAnUnreachableBrokerWithinTheConnectAttempts(String attempts, int refused)
            throws Exception {
        // Given: etcd lists a broker at an address where nothing listens
        List<Integer> brokers = spreadLeaders("any-broker-" + attempts);
        BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of("any-broker-" + attempts),
                Map.of(brokers.get(2), "127.0.0.1:" + FreePorts.next()));
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "brokers", Map.of(ProxyConfig.BACKENDS, "",
                ProxyConfig.ETCD_ENDPOINTS, BACKENDS.etcd().endpoint(), ProxyConfig.BACKEND_RETRIES, attempts,
                ProxyConfig.BACKEND_BACKOFF_MS, "50"));
             RawKafkaConnection client = new RawKafkaConnection(proxy.port())) {
            // When: three requests that any broker answers, one starting at each broker in turn
            int refusedCount = 0;
            for (int i = 0; i < 3; i++) {
                DescribeClientQuotasResponseData answer = client.send(
                        new DescribeClientQuotasRequestData().setComponents(List.of()).setStrict(false), (short) 1);
                if (answer.errorCode() == Errors.REQUEST_TIMED_OUT.code()) {
                    refusedCount++;
                }
            }
            // Then
            assertEquals(refused, refusedCount);
        }
    }

    private static int leaderThroughProxy(RunningProxy proxy, String topic) throws Exception {
        try (RawKafkaConnection connection = new RawKafkaConnection(proxy.port())) {
            MetadataResponse metadata = connection.send(new MetadataRequest.Builder(List.of(topic), false).build((short) 12));
            return metadata.data().topics().find(topic).partitions().get(0).leaderId();
        }
    }

    static KafkaProducer<String, String> producer(RunningProxy proxy) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return new KafkaProducer<>(props);
    }



}
