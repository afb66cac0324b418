package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;
import org.kafscale.proxy.testkit.Kcat;

/**
 * Advertise mode ports: every broker id at the proxy's host on a port of its own, so clients that
 * key brokers by address (librdkafka) read every partition, and a connection on a broker's port
 * reaches that broker for its own configs, log dirs and listings.
 */
class PortPerBrokerIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** Config values the proxy blanks (they name broker addresses): compared only as blanked. */
    private static final Set<String> ADDRESS_CONFIGS = Set.of("listeners", "advertised.listeners",
            "controller.quorum.voters", "controller.quorum.bootstrap.servers");

    @RegisterExtension
    static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(3);

    /** How many ids need a port: the highest broker id + 1. */
    private static int portCount() {
        return BACKENDS.cluster().brokerIds().stream().mapToInt(Integer::intValue).max().orElseThrow() + 1;
    }

    private static Map<String, String> portsMode(int base) {
        return Map.of(ProxyConfig.BROKER_PORT_BASE, String.valueOf(base),
                ProxyConfig.BROKER_PORT_COUNT, String.valueOf(portCount()));
    }

    private static RunningProxy proxy(int base) {
        RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "ports", portsMode(base));
        Eventually.await(DEADLINE, "/readyz turns 200", () -> proxy.healthStatus("/readyz") == 200);
        return proxy;
    }

    private static void spreadLeaders(String topic) {
        List<Integer> brokers = BACKENDS.cluster().brokerIds();
        BACKENDS.cluster().createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    @Test
    void everyBrokerIsAdvertisedAtItsOwnPortAndJavaAndKcatReadEveryPartition() throws Exception {
        // Given: three partitions, one led by each broker
        String topic = "ports-spread";
        spreadLeaders(topic);
        int base = FreePorts.block(portCount());
        try (RunningProxy proxy = proxy(base); Admin admin = admin(proxy.bootstrap())) {
            // Then: each real id at the proxy's host on base + id, never a broker's address
            Map<Integer, String> advertised = new TreeMap<>();
            for (Node node : admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
                advertised.put(node.id(), node.host() + ":" + node.port());
            }
            Map<Integer, String> expected = new TreeMap<>();
            BACKENDS.cluster().brokerIds().forEach(id -> expected.put(id, "127.0.0.1:" + (base + id)));
            assertEquals(expected, advertised);
            // When: a Java producer writes, and a Java consumer and kcat each read everything back
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, 3, 300);
            Map<Integer, List<String>> received = RecordRoundTrip.consumeFromStart(proxy.bootstrap(), topic, 3, 300);
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
            Kcat.Result consumed = Kcat.consume(proxy.bootstrap(), topic, 300);
            // Then: librdkafka, which keys brokers by address, saw all three brokers' partitions
            assertTrue(consumed.succeeded(), consumed.stderr());
            Set<String> values = sent.values().stream().flatMap(List::stream).collect(Collectors.toSet());
            assertEquals(300, consumed.lines().size(), consumed.stderr());
            assertEquals(values, new HashSet<>(consumed.lines()));
        }
    }

    @Test
    void aBrokerThatAppearsInEtcdLaterGetsItsPortOpened() throws Exception {
        // Given: etcd lists two of the three brokers
        BACKENDS.kafscale().deleteAll();
        int base = FreePorts.block(portCount());
        List<Integer> brokers = BACKENDS.cluster().brokerIds();
        BACKENDS.kafscale().publishSnapshotJson(withoutBroker(KafscaleEtcdWriter.snapshotJson(BACKENDS.cluster(), List.of()), brokers.get(2)));
        Map<String, String> extra = new HashMap<>(portsMode(base));
        extra.put(ProxyConfig.BACKENDS, "");
        extra.put(ProxyConfig.ETCD_ENDPOINTS, BACKENDS.etcd().endpoint());
        extra.put(ProxyConfig.ETCD_RESYNC_MS, "500");
        try (RunningProxy proxy = RunningProxy.start(BACKENDS.cluster(), "ports", extra); Admin admin = admin(proxy.bootstrap())) {
            Eventually.await(DEADLINE, "ports of the two listed brokers open", () ->
                    assertEquals(Set.of(brokers.get(0), brokers.get(1)), proxy.runtime().brokerPortAddresses().keySet()));
            assertFalse(reachable(base + brokers.get(2)), "no port for a broker etcd does not list");
            // When: the third broker appears
            BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of());
            // Then: its port opens and the cluster shows it there
            Eventually.await(DEADLINE, "the third broker's port opens", () ->
                    assertEquals(Set.copyOf(brokers), proxy.runtime().brokerPortAddresses().keySet()));
            assertTrue(reachable(base + brokers.get(2)));
            Eventually.await(DEADLINE, "the third broker is advertised at its port", () -> assertTrue(
                    admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().anyMatch(n ->
                            n.id() == brokers.get(2) && n.port() == base + brokers.get(2))));
            // When: it leaves again, its port closes
            BACKENDS.kafscale().publishSnapshotJson(withoutBroker(KafscaleEtcdWriter.snapshotJson(BACKENDS.cluster(), List.of()),
                    brokers.get(2)));
            Eventually.await(DEADLINE, "the third broker's port closes", () -> !reachable(base + brokers.get(2)));
        }
    }

    @Test
    void describeProducersWithABrokerIdAsksThatBrokerThroughItsPort() throws Exception {
        // Given: a partition on every broker, written by an idempotent producer through the proxy
        String topic = "ports-producers";
        BACKENDS.cluster().createTopic(topic, 1);
        TopicPartition partition = new TopicPartition(topic, 0);
        int base = FreePorts.block(portCount());
        try (RunningProxy proxy = proxy(base); Admin viaProxy = admin(proxy.bootstrap());
             Admin direct = admin(BACKENDS.cluster().bootstrapServers())) {
            RecordRoundTrip.produce(proxy.bootstrap(), topic, 1, 10);
            int leader = BACKENDS.cluster().leaders(topic).get(0);
            int follower = BACKENDS.cluster().brokerIds().stream().filter(id -> id != leader).findFirst().orElseThrow();
            // When: kafka-transactions describe-producers --broker-id <follower>, through the follower's port
            // Then: the follower's own view of the producers, as the follower answers directly
            Eventually.await(DEADLINE, "the follower's producer state through its port equals direct", () ->
                    assertEquals(producerIds(direct, partition, follower), producerIds(viaProxy, partition, follower)));
            assertFalse(producerIds(viaProxy, partition, follower).isEmpty(), "the follower has the producer");
            assertEquals(producerIds(direct, partition, leader), producerIds(viaProxy, partition, leader));
        }
    }

    private static Set<Long> producerIds(Admin admin, TopicPartition partition, int broker) throws Exception {
        return admin.describeProducers(List.of(partition), new DescribeProducersOptions().brokerId(broker))
                .partitionResult(partition).get(30, TimeUnit.SECONDS).activeProducers().stream()
                .map(ProducerState::producerId).collect(Collectors.toCollection(TreeSet::new));
    }

    private static boolean reachable(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String withoutBroker(String snapshotJson, int brokerId) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode snapshot = (ObjectNode) mapper.readTree(snapshotJson);
        ArrayNode kept = mapper.createArrayNode();
        snapshot.withArray("Brokers").forEach(b -> {
            if (b.get("NodeID").asInt() != brokerId) {
                kept.add(b);
            }
        });
        snapshot.set("Brokers", kept);
        return mapper.writeValueAsString(snapshot);
    }

    @Test
    void brokerConfigsAndLogDirsThroughEachBrokersPortEqualDirect() throws Exception {
        spreadLeaders("ports-logdirs");
        int base = FreePorts.block(portCount());
        List<Integer> brokers = BACKENDS.cluster().brokerIds();
        try (RunningProxy proxy = proxy(base); Admin viaProxy = admin(proxy.bootstrap());
             Admin direct = admin(BACKENDS.cluster().bootstrapServers())) {
            // When: kafka-configs --describe --entity-type brokers --entity-name N, for two brokers
            List<ConfigResource> resources = List.of(
                    new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(brokers.get(1))),
                    new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(brokers.get(2))));
            Map<ConfigResource, Config> proxied = viaProxy.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            Map<ConfigResource, Config> expected = direct.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            // Then: each broker's own values (its node.id among them), addresses blanked
            for (ConfigResource resource : resources) {
                assertEquals(comparable(expected.get(resource)), comparable(proxied.get(resource)), resource.toString());
                assertEquals(resource.name(), proxied.get(resource).get("node.id").value());
                for (String name : ADDRESS_CONFIGS) {
                    ConfigEntry entry = proxied.get(resource).get(name);
                    assertTrue(entry == null || entry.value() == null, name + " is hidden: " + entry);
                }
            }
            // When: kafka-log-dirs --describe --broker-list (each broker asked on its own port)
            Map<Integer, Map<String, LogDirDescription>> proxiedDirs =
                    viaProxy.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS);
            Map<Integer, Map<String, LogDirDescription>> directDirs =
                    direct.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS);
            // Then: the same dirs with the same replicas, per broker
            assertEquals(replicasByDir(directDirs), replicasByDir(proxiedDirs));
            assertTrue(replicasByDir(proxiedDirs).get(brokers.get(2)).values().stream()
                    .anyMatch(r -> r.contains(new TopicPartition("ports-logdirs", 2))), "broker 2 holds its partition");
        }
    }

    /** Name to value, for the values the proxy passes unchanged (not the address settings it blanks). */
    private static Map<String, String> comparable(Config config) {
        Map<String, String> values = new TreeMap<>();
        for (ConfigEntry entry : config.entries()) {
            if (!ADDRESS_CONFIGS.contains(entry.name()) && !namesABroker(entry.value())) {
                values.put(entry.name(), String.valueOf(entry.value()));
            }
        }
        return values;
    }

    private static boolean namesABroker(String value) {
        return value != null && BACKENDS.cluster().brokerIds().stream().anyMatch(id -> value.contains(BACKENDS.cluster().brokerAddress(id)));
    }

    private static Map<Integer, Map<String, Set<TopicPartition>>> replicasByDir(
            Map<Integer, Map<String, LogDirDescription>> dirs) {
        Map<Integer, Map<String, Set<TopicPartition>>> shape = new TreeMap<>();
        dirs.forEach((broker, byDir) -> byDir.forEach((dir, description) -> shape
                .computeIfAbsent(broker, b -> new TreeMap<>())
                .put(dir, new HashSet<>(description.replicaInfos().keySet()))));
        return shape;
    }

    @Test
    void diskApisAreAdvertisedOnlyOnABrokersPort() throws Exception {
        int base = FreePorts.block(portCount());
        int broker = BACKENDS.cluster().brokerIds().get(1);
        try (RunningProxy proxy = proxy(base)) {
            assertFalse(advertises(proxy.port(), ApiKeys.DESCRIBE_LOG_DIRS), "bootstrap port names no broker");
            assertTrue(advertises(base + broker, ApiKeys.DESCRIBE_LOG_DIRS));
            assertTrue(advertises(base + broker, ApiKeys.ALTER_REPLICA_LOG_DIRS));
        }
    }

    private static boolean advertises(int port, ApiKeys api) throws IOException {
        try (RawKafkaConnection connection = new RawKafkaConnection(port)) {
            ApiVersionsResponseData versions = connection.send(new ApiVersionsRequestData()
                    .setClientSoftwareName("ports-it").setClientSoftwareVersion("1"), (short) 3);
            return versions.apiKeys().find(api.id) != null;
        }
    }

    @Test
    void eachBrokersPortListsItsOwnGroupsAndTransactionsAreListedOnce() throws Exception {
        // Given: groups and transactional ids spread over the coordinators
        spreadLeaders("ports-groups");
        int base = FreePorts.block(portCount());
        List<String> groups = new ArrayList<>();
        List<String> transactionalIds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            groups.add("ports-group-" + i);
            transactionalIds.add("ports-txn-" + i);
        }
        try (RunningProxy proxy = proxy(base); Admin viaProxy = admin(proxy.bootstrap())) {
            for (String group : groups) {
                commitOffset(proxy.bootstrap(), group);
            }
            for (String id : transactionalIds) {
                commitTransaction(proxy.bootstrap(), id);
            }
            // When: ListGroups on each broker's port
            Map<Integer, Set<String>> perBroker = new TreeMap<>();
            Map<Integer, Set<String>> directPerBroker = new TreeMap<>();
            for (int broker : BACKENDS.cluster().brokerIds()) {
                perBroker.put(broker, listGroups(base + broker, groups));
                directPerBroker.put(broker, listGroups(directPort(broker), groups));
            }
            // Then: each broker lists what it coordinates, as directly, so each group appears once
            assertEquals(directPerBroker, perBroker);
            List<String> all = perBroker.values().stream().flatMap(Collection::stream).sorted().toList();
            assertEquals(groups, all);
            // When: kafka-transactions list (the Admin asks every broker, now each on its own port)
            Collection<TransactionListing> listed = viaProxy.listTransactions().all().get(30, TimeUnit.SECONDS);
            List<String> ids = listed.stream().map(TransactionListing::transactionalId)
                    .filter(transactionalIds::contains).sorted().toList();
            // Then: each transactional id once
            assertEquals(transactionalIds, ids);
        }
    }

    private static int directPort(int broker) {
        String address = BACKENDS.cluster().brokerAddress(broker);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    private static Set<String> listGroups(int port, List<String> ours) throws IOException {
        try (RawKafkaConnection connection = new RawKafkaConnection(port)) {
            ListGroupsResponseData answer = connection.send(new ListGroupsRequestData(), (short) 4);
            return answer.groups().stream().map(ListGroupsResponseData.ListedGroup::groupId).filter(ours::contains)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static void commitOffset(String bootstrap, String group) {
        Properties props = RecordRoundTrip.consumerProperties(bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.commitSync(Map.of(new TopicPartition("ports-groups", 0), new OffsetAndMetadata(0)));
        }
    }

    private static void commitTransaction(String bootstrap, String transactionalId) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("ports-groups", 1, "k", transactionalId)).get(30, TimeUnit.SECONDS);
            producer.commitTransaction();
        }
    }
}
