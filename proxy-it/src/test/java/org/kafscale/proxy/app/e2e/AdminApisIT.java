package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * The admin API a cluster operator runs through the proxy's one address, each call compared with
 * the same call made directly: broker and broker-logger configs of the broker they name (with no
 * real address in any value), transactions listed and a hanging one aborted, leader elections,
 * reassignments, client quotas, SCRAM credentials, features, the metadata quorum (at the proxy's
 * address) and the config resources.
 */
class AdminApisIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** A dynamic per-broker config whose change is harmless. */
    private static final String CLEANER_BACKOFF = "log.cleaner.backoff.ms";

    private static KafkaCluster cluster;
    /** Every port a broker or controller of the cluster listens on. */
    private static Set<Integer> realPorts;

    @BeforeAll
    static void start() throws Exception {
        cluster = KafkaCluster.start(3);
        realPorts = new HashSet<>();
        for (int id : cluster.brokerIds()) {
            String address = cluster.brokerAddress(id);
            realPorts.add(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
        }
        for (QuorumInfo.Node node : cluster.admin().describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS)
                .nodes().values()) {
            node.endpoints().forEach(e -> realPorts.add(e.port()));
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void brokerConfigsOfEachAddressableBrokerAreItsOwnAndNameNoRealAddress(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            for (int id : addressable(mode)) {
                ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(id));
                ConfigResource loggers = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, Integer.toString(id));
                // When: the broker's configs and loggers are described through the proxy
                Map<ConfigResource, Config> viaProxy = admin.describeConfigs(List.of(broker, loggers)).all()
                        .get(30, TimeUnit.SECONDS);
                Map<ConfigResource, Config> direct = cluster.admin().describeConfigs(List.of(broker, loggers)).all()
                        .get(30, TimeUnit.SECONDS);
                // Then: the same configs as broker <id> gives directly (its own node.id), and no real port anywhere
                assertEquals(Integer.toString(id), viaProxy.get(broker).get("node.id").value(), "node.id of broker " + id);
                assertEquals(names(direct.get(broker)), names(viaProxy.get(broker)), "config names of broker " + id);
                assertEquals(names(direct.get(loggers)), names(viaProxy.get(loggers)), "loggers of broker " + id);
                assertTrue(direct.get(broker).get("listeners").value().contains(":"), "the direct answer names addresses");
                for (Config config : viaProxy.values()) {
                    for (ConfigEntry entry : config.entries()) {
                        assertNoRealPort(entry.name() + " of broker " + id, entry.value());
                        entry.synonyms().forEach(s -> assertNoRealPort(s.name() + " of broker " + id, s.value()));
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void brokerAndLoggerConfigsAreAlteredOnTheBrokerNamed(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            for (int id : addressable(mode)) {
                ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(id));
                ConfigResource loggers = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, Integer.toString(id));
                String backoff = Integer.toString(15_000 + id + 1);
                // A logger the broker has (it refuses others), set to a level it does not have now
                ConfigEntry existing = cluster.admin().describeConfigs(List.of(loggers)).all().get(30, TimeUnit.SECONDS)
                        .get(loggers).entries().stream().filter(e -> !e.name().equals("root")).findFirst().orElseThrow();
                String logger = existing.name();
                String level = "ERROR".equals(existing.value()) ? "WARN" : "ERROR";
                // When: one call sets a dynamic config of broker <id> and a logger's level on it
                admin.incrementalAlterConfigs(Map.of(
                        broker, List.of(new AlterConfigOp(new ConfigEntry(CLEANER_BACKOFF, backoff), AlterConfigOp.OpType.SET)),
                        loggers, List.of(new AlterConfigOp(new ConfigEntry(logger, level), AlterConfigOp.OpType.SET))))
                        .all().get(30, TimeUnit.SECONDS);
                // Then: broker <id> itself reports both, read directly
                Eventually.await(DEADLINE, "broker " + id + " reports the new configs", () -> {
                    Map<ConfigResource, Config> direct = cluster.admin().describeConfigs(List.of(broker, loggers)).all()
                            .get(30, TimeUnit.SECONDS);
                    assertEquals(backoff, direct.get(broker).get(CLEANER_BACKOFF).value());
                    assertEquals(level, direct.get(loggers).get(logger).value());
                });
                admin.incrementalAlterConfigs(Map.of(
                        broker, List.of(new AlterConfigOp(new ConfigEntry(CLEANER_BACKOFF, ""), AlterConfigOp.OpType.DELETE)),
                        loggers, List.of(new AlterConfigOp(new ConfigEntry(logger, existing.value()), AlterConfigOp.OpType.SET))))
                        .all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void openTransactionsAreListedDescribedAndAHangingOneIsAborted(String mode) throws Exception {
        String topic = "txns-" + mode;
        List<Integer> brokers = cluster.brokerIds();
        cluster.createTopic(topic, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        Set<String> ids = Set.of("txn-a-" + mode, "txn-b-" + mode);
        List<KafkaProducer<String, String>> producers = new ArrayList<>();
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // Given: two transactions left open, each with a record on its own partition (written directly)
            int partition = 0;
            for (String id : ids) {
                KafkaProducer<String, String> producer = transactional(cluster.bootstrapServers(), id);
                producers.add(producer);
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(topic, partition++, "k", "v")).get(30, TimeUnit.SECONDS);
            }

            // When: transactions are listed through the proxy
            Collection<TransactionListing> listed = admin.listTransactions().all().get(30, TimeUnit.SECONDS);
            List<String> ours = listed.stream().map(TransactionListing::transactionalId).filter(ids::contains).toList();

            // Then: both, each once, as listed directly
            Set<String> direct = cluster.admin().listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                    .map(TransactionListing::transactionalId).filter(ids::contains).collect(Collectors.toSet());
            assertEquals(ids, direct);
            assertEquals(ids, new HashSet<>(ours));
            if ("single".equals(mode)) {
                // In brokers mode the Admin asks each broker id, and every id is the same address: the proxy
                // cannot tell which broker a connection means (ConnectionContext.addressedBroker is empty until
                // a port per broker), so each id answers the whole list and the Admin lists each id's copy.
                assertEquals(ids.size(), ours.size(), "each transaction listed once: " + ours);
            }

            // And: both are described through the proxy as directly (DescribeTransactions split per coordinator)
            Map<String, TransactionDescription> described = admin.describeTransactions(ids).all().get(30, TimeUnit.SECONDS);
            Map<String, TransactionDescription> describedDirect = cluster.admin().describeTransactions(ids).all()
                    .get(30, TimeUnit.SECONDS);
            for (String id : ids) {
                assertEquals(describedDirect.get(id).state(), described.get(id).state(), "state of " + id);
                assertEquals(describedDirect.get(id).producerId(), described.get(id).producerId(), "producer of " + id);
                assertEquals(describedDirect.get(id).topicPartitions(), described.get(id).topicPartitions(), "partitions of " + id);
            }

            // When: the transaction on partition 0 is aborted through the proxy as kafka-transactions abort does
            TopicPartition hanging = new TopicPartition(topic, 0);
            ProducerState state = openTransaction(hanging).orElseThrow();
            admin.abortTransaction(new AbortTransactionSpec(hanging, state.producerId(), (short) state.producerEpoch(),
                    state.coordinatorEpoch().orElse(-1))).all().get(30, TimeUnit.SECONDS);

            // Then: the partition's leader no longer holds it open, and the other stays open
            Eventually.await(DEADLINE, "the aborted transaction is closed on its partition",
                    () -> assertEquals(Optional.empty(), openTransaction(hanging)));
            assertTrue(openTransaction(new TopicPartition(topic, 1)).isPresent(), "the other transaction stays open");
        } finally {
            producers.forEach(p -> p.close(Duration.ZERO));
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void preferredLeaderElectionAnswersAsDirect(String mode) throws Exception {
        String topic = "elect-" + mode;
        cluster.createTopic(topic, 3);
        Set<TopicPartition> partitions = Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1),
                new TopicPartition(topic, 2));
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // When: a preferred election for partitions whose preferred leaders lead already
            Map<TopicPartition, Optional<Throwable>> viaProxy = admin.electLeaders(ElectionType.PREFERRED, partitions)
                    .partitions().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Optional<Throwable>> direct = cluster.admin().electLeaders(ElectionType.PREFERRED, partitions)
                    .partitions().get(30, TimeUnit.SECONDS);
            // Then: each partition has the outcome it has directly (election not needed)
            for (TopicPartition partition : partitions) {
                assertEquals(outcome(direct.get(partition)), outcome(viaProxy.get(partition)), "election of " + partition);
            }
            assertTrue(outcome(viaProxy.get(new TopicPartition(topic, 0))).contains("ElectionNotNeeded"),
                    "election of " + topic + "-0: " + outcome(viaProxy.get(new TopicPartition(topic, 0))));
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void aPartitionIsReassignedAndReassignmentsAreListed(String mode) throws Exception {
        String topic = "moved-" + mode;
        List<Integer> brokers = cluster.brokerIds();
        cluster.createTopic(topic, Map.of(0, brokers.get(0)));
        TopicPartition partition = new TopicPartition(topic, 0);
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // When: its one replica moves from the first broker to the second, through the proxy
            admin.alterPartitionReassignments(Map.of(partition,
                    Optional.of(new NewPartitionReassignment(List.of(brokers.get(1)))))).all().get(30, TimeUnit.SECONDS);
            // Then: the cluster has moved it, and the listing through the proxy is the listing direct (nothing in progress)
            Eventually.await(DEADLINE, "the replica is on broker " + brokers.get(1), () -> assertEquals(List.of(brokers.get(1)),
                    cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                            .partitions().get(0).replicas().stream().map(n -> n.id()).toList()));
            Eventually.await(DEADLINE, "no reassignment in progress", () -> assertEquals(Map.of(),
                    admin.listPartitionReassignments(Set.of(partition)).reassignments().get(30, TimeUnit.SECONDS)));
            assertEquals(cluster.admin().listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS).keySet(),
                    admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS).keySet());
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void clientQuotasAndScramCredentialsAreAlteredAndDescribed(String mode) throws Exception {
        String user = "operator-" + mode;
        ClientQuotaEntity entity = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, user));
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // When: a quota and a SCRAM credential are set for a user through the proxy
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0))))).all().get(30, TimeUnit.SECONDS);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "secret"))).all().get(30, TimeUnit.SECONDS);

            // Then: both read back through the proxy as they read directly
            ClientQuotaFilter filter = ClientQuotaFilter.containsOnly(List.of(
                    ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, user)));
            Eventually.await(DEADLINE, "the quota is described", () -> assertEquals(
                    Map.of(entity, Map.of("producer_byte_rate", 1024.0)),
                    admin.describeClientQuotas(filter).entities().get(30, TimeUnit.SECONDS)));
            assertEquals(cluster.admin().describeClientQuotas(filter).entities().get(30, TimeUnit.SECONDS),
                    admin.describeClientQuotas(filter).entities().get(30, TimeUnit.SECONDS));
            Eventually.await(DEADLINE, "the credential is described", () -> assertEquals(
                    List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192)),
                    admin.describeUserScramCredentials(List.of(user)).description(user).get(30, TimeUnit.SECONDS)
                            .credentialInfos()));
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void aFeatureUpdateToTheFinalizedLevelIsValidatedAsDirect(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // Given: the level the cluster has finalized for group.version
            short level = cluster.admin().describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get("group.version").maxVersionLevel();
            Map<String, FeatureUpdate> update = Map.of("group.version",
                    new FeatureUpdate(level, FeatureUpdate.UpgradeType.UPGRADE));
            UpdateFeaturesOptions validateOnly = new UpdateFeaturesOptions().validateOnly(true);
            // When: an update to that level is validated through the proxy and directly
            String viaProxy = outcome(admin.updateFeatures(update, validateOnly).all());
            String direct = outcome(cluster.admin().updateFeatures(update, validateOnly).all());
            // Then: the same outcome
            assertEquals(direct, viaProxy);
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void theMetadataQuorumIsDescribedAtTheProxysAddress(String mode) throws Exception {
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            // When
            QuorumInfo viaProxy = admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
            QuorumInfo direct = cluster.admin().describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
            // Then: the same quorum, every endpoint at the proxy's address
            assertEquals(direct.leaderId(), viaProxy.leaderId());
            assertEquals(direct.nodes().keySet(), viaProxy.nodes().keySet());
            assertFalse(viaProxy.nodes().isEmpty(), "the quorum names its nodes");
            for (QuorumInfo.Node node : viaProxy.nodes().values()) {
                for (RaftVoterEndpoint endpoint : node.endpoints()) {
                    assertEquals("127.0.0.1:" + proxy.port(), endpoint.host() + ":" + endpoint.port(),
                            "endpoint of node " + node.nodeId());
                }
            }
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void configResourcesAreListedAsDirect(String mode) throws Exception {
        String topic = "listed-config-" + mode;
        cluster.createTopic(topic, 1);
        try (RunningProxy proxy = RunningProxy.start(cluster, mode); Admin admin = admin(proxy)) {
            Collection<ConfigResource> viaProxy = admin.listConfigResources().all().get(30, TimeUnit.SECONDS);
            Collection<ConfigResource> direct = cluster.admin().listConfigResources().all().get(30, TimeUnit.SECONDS);
            assertEquals(new HashSet<>(direct), new HashSet<>(viaProxy));
            assertTrue(viaProxy.contains(new ConfigResource(ConfigResource.Type.TOPIC, topic)), "lists " + topic);
        }
    }

    /** The broker ids an Admin can name through the proxy: node 0 only in single mode. */
    private static List<Integer> addressable(String mode) {
        return "single".equals(mode) ? List.of(0) : cluster.brokerIds();
    }

    private static Set<String> names(Config config) {
        return config.entries().stream().map(ConfigEntry::name).collect(Collectors.toSet());
    }

    private static void assertNoRealPort(String what, String value) {
        if (value == null) {
            return;
        }
        for (int port : realPorts) {
            assertFalse(value.contains(":" + port), what + " names a real address: " + value);
        }
    }

    /** The partition's open transaction as its leader tells it (read directly). */
    private static Optional<ProducerState> openTransaction(TopicPartition partition) throws Exception {
        return cluster.admin().describeProducers(List.of(partition)).partitionResult(partition).get(30, TimeUnit.SECONDS)
                .activeProducers().stream().filter(p -> p.currentTransactionStartOffset().isPresent()).findFirst();
    }

    private static String outcome(Optional<Throwable> error) {
        return error.map(e -> e.getClass().getSimpleName()).orElse("done");
    }

    private static String outcome(org.apache.kafka.common.KafkaFuture<Void> future) throws InterruptedException {
        try {
            future.get(30, TimeUnit.SECONDS);
            return "done";
        } catch (ExecutionException e) {
            return e.getCause().getClass().getSimpleName();
        } catch (java.util.concurrent.TimeoutException e) {
            return "timed out";
        }
    }

    private static KafkaProducer<String, String> transactional(String bootstrap, String id) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        // Open until the test ends: the coordinator must not abort it on its own meanwhile.
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static Admin admin(RunningProxy proxy) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        return Admin.create(props);
    }
}
