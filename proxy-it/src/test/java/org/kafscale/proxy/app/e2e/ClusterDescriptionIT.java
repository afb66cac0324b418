package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.SupportedVersionRange;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * What the proxy answers itself, compared with the same call direct on a three-broker cluster:
 * features, the cluster, topics by name and by id, a fenced transactional producer; and what it
 * does not serve is refused, never forwarded.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterDescriptionIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @Order(1)
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void describeFeaturesThroughTheProxyEqualsDirect(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode);
             Admin direct = admin(KAFKA.cluster().bootstrapServers()); Admin proxied = admin(proxy.bootstrap())) {
            // When both describe the features
            FeatureMetadata expected = direct.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
            FeatureMetadata actual = proxied.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);

            // Then the same supported and finalized features (transaction.version among them), and an epoch
            // (the epoch is the metadata log offset, which moves on between the two calls)
            assertEquals(finalized(expected), finalized(actual));
            assertEquals(supported(expected), supported(actual));
            assertTrue(finalized(actual).containsKey("transaction.version"), "brokers finalize transaction.version");
            assertTrue(actual.finalizedFeaturesEpoch().isPresent(), "the finalized epoch is advertised");
        }
    }

    @Order(2)
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void describeClusterShowsOnlyTheProxysAddress(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode);
             Admin direct = admin(KAFKA.cluster().bootstrapServers()); Admin proxied = admin(proxy.bootstrap())) {
            // When
            DescribeClusterResult through = proxied.describeCluster();
            List<Node> nodes = List.copyOf(through.nodes().get(30, TimeUnit.SECONDS));

            // Then every node at the proxy's address: the real ids in brokers mode, node 0 in single mode
            for (Node node : nodes) {
                assertEquals("127.0.0.1:" + proxy.port(), node.host() + ":" + node.port(), "node " + node);
            }
            Set<Integer> ids = nodes.stream().map(Node::id).collect(Collectors.toSet());
            assertEquals(mode.equals("brokers") ? Set.copyOf(KAFKA.cluster().brokerIds()) : Set.of(0), ids);
            assertTrue(ids.contains(through.controller().get(30, TimeUnit.SECONDS).id()), "the controller is a listed node");
            assertEquals(direct.describeCluster().clusterId().get(30, TimeUnit.SECONDS),
                    through.clusterId().get(30, TimeUnit.SECONDS));
        }
    }

    @Order(3)
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void describeTopicsByNameAndByIdEqualsDirect(String mode) throws Exception {
        // Given a topic of six partitions with three replicas each
        String topic = "described-" + mode;
        KAFKA.cluster().createTopic(topic, 6);
        Uuid id = KAFKA.cluster().topicId(topic);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode);
             Admin direct = admin(KAFKA.cluster().bootstrapServers()); Admin proxied = admin(proxy.bootstrap())) {
            // When described by name (DescribeTopicPartitions) and by id (Metadata with a topic id)
            TopicDescription expected = direct.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic);
            TopicDescription byName = proxied.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic);
            TopicDescription byId = proxied.describeTopics(TopicCollection.ofTopicIds(List.of(id))).allTopicIds()
                    .get(30, TimeUnit.SECONDS).get(id);

            // Then both equal the direct view: real leaders, replicas and ISR in brokers mode; node 0 as
            // leader and only replica in single mode (the price of one address)
            String shown = shape(expected, mode);
            assertEquals(shown, shape(byName, "brokers"));
            assertEquals(shown, shape(byId, "brokers"));
            assertEquals(id, byId.topicId());
            assertEquals(topic, byId.name());
        }
    }

    @Order(4)
    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void fencedTransactionalProducerFailsThroughTheProxyAsItDoesDirect(String mode) throws Exception {
        // Given
        String topic = "fenced-" + mode;
        KAFKA.cluster().createTopic(topic, 3);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When a second producer with the same transactional id fences the first, direct and through the proxy
            String direct = fencedProducerError(KAFKA.cluster().bootstrapServers(), topic, "fenced-direct-" + mode);
            String proxied = fencedProducerError(proxy.bootstrap(), topic, "fenced-proxied-" + mode);

            // Then the same exception (transaction.version 2 through the proxy too)
            assertEquals(direct, proxied);
        }
    }

    @Order(5)
    @Test
    void saslHandshakeGetsUnsupportedSaslMechanismWithNoMechanisms() throws Exception {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single");
             RawKafkaConnection connection = new RawKafkaConnection(proxy.port())) {
            // When a client starts SASL on a listener without it
            SaslHandshakeResponse answer = connection.send(new SaslHandshakeRequest.Builder(
                    new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1));

            // Then UNSUPPORTED_SASL_MECHANISM, no mechanisms, a log line, and the connection closes
            assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), answer.data().errorCode());
            assertEquals(List.of(), answer.data().mechanisms());
            logs.awaitLine(DEADLINE, "answered UNSUPPORTED_SASL_MECHANISM");
            assertTrue(connection.closedByProxy());
        }
    }

    @Order(6)
    @Test
    void unadvertisedKeysCloseTheConnectionWithOneLogLineAndAreNeverForwarded() throws Exception {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
            // When a made-up key 999 arrives
            try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
                socket.setSoTimeout((int) DEADLINE.toMillis());
                writeRawRequest(socket, (short) 999, "made-up");
                // Then the connection closes, with one line naming key and client
                assertEquals(-1, socket.getInputStream().read(), "closed without an answer");
            }
            logs.awaitLine(DEADLINE, "key 999");
            assertEquals(1, logs.events().stream().filter(e -> e.getFormattedMessage().contains("key 999")
                    && e.getFormattedMessage().contains("made-up")).count());

            // When DescribeLogDirs (a broker would answer with its disk paths)
            try (RawKafkaConnection connection = new RawKafkaConnection(proxy.port())) {
                connection.write(new DescribeLogDirsRequest.Builder(new DescribeLogDirsRequestData()).build((short) 4));
                // Then closed, no answer
                assertTrue(connection.closedByProxy());
            }
        }
    }

    @Order(7)
    @Test
    void restartedBrokerIsProbedAgain() {
        int broker = KAFKA.cluster().brokerIds().get(2);
        String probed = "Probed broker " + broker + " (";
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
            logs.awaitLine(DEADLINE, probed);
            // When the broker restarts (it leaves the cluster's metadata, then comes back)
            KAFKA.cluster().stopBroker(broker);
            logs.awaitLine(DEADLINE, "Brokers [" + broker + "] left the topology");
            KAFKA.cluster().restartBroker(broker);

            // Then the proxy asks it for its versions again
            org.kafscale.proxy.testkit.Eventually.await(DEADLINE, "a second probe of broker " + broker,
                    () -> logs.events().stream().filter(e -> e.getFormattedMessage().startsWith(probed)).count() == 2);
        }
    }

    // ---- helpers ----

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    private static Map<String, Short> finalized(FeatureMetadata features) {
        return new TreeMap<>(features.finalizedFeatures().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> ((FinalizedVersionRange) e.getValue()).maxVersionLevel())));
    }

    private static Map<String, String> supported(FeatureMetadata features) {
        return new TreeMap<>(features.supportedFeatures().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                e -> ((SupportedVersionRange) e.getValue()).minVersion() + "-" + ((SupportedVersionRange) e.getValue()).maxVersion())));
    }

    /** A topic's description by node ids, as a client in {@code mode} should see it. */
    private static String shape(TopicDescription topic, String mode) {
        StringBuilder out = new StringBuilder(topic.name() + " " + topic.topicId() + " internal=" + topic.isInternal());
        for (TopicPartitionInfo p : topic.partitions()) {
            boolean single = mode.equals("single");
            out.append("\n p").append(p.partition())
                    .append(" leader=").append(single ? 0 : p.leader().id())
                    .append(" replicas=").append(single ? List.of(0) : ids(p.replicas()))
                    .append(" isr=").append(single ? List.of(0) : ids(p.isr()));
        }
        return out.toString();
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    /**
     * The exception a transactional producer gets when, fenced by a second producer with its id,
     * it writes in a new transaction: the class name. Under transaction.version 1 the client first
     * adds the partition (AddPartitionsToTxn), which fails with ProducerFencedException; under
     * version 2 (KIP-890) the Produce adds it and fails with InvalidProducerEpochException.
     */
    private static String fencedProducerError(String bootstrap, String topic, String transactionalId) throws Exception {
        try (KafkaProducer<String, String> first = transactional(bootstrap, transactionalId);
             KafkaProducer<String, String> second = transactional(bootstrap, transactionalId)) {
            first.initTransactions();
            second.initTransactions();
            first.beginTransaction();
            try {
                first.send(new ProducerRecord<>(topic, "k", "fenced")).get(30, TimeUnit.SECONDS);
                first.commitTransaction();
            } catch (ExecutionException e) {
                return e.getCause().getClass().getName();
            } catch (RuntimeException e) {
                return e.getClass().getName();
            }
            throw new AssertionError("the fenced producer committed");
        }
    }

    private static KafkaProducer<String, String> transactional(String bootstrap, String transactionalId) {
        Properties props = RecordRoundTrip.idempotentProducerProperties(bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return new KafkaProducer<>(props);
    }

    private static void writeRawRequest(Socket socket, short apiKey, String clientId) throws java.io.IOException {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(2 + 2 + 4 + 2 + id.length + 4);
        out.writeShort(apiKey);
        out.writeShort(0);
        out.writeInt(42);
        out.writeShort(id.length);
        out.write(id);
        out.writeInt(0xCAFE);
        out.flush();
    }
}
