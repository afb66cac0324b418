package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.testkit.ClientFamily;
import org.kafscale.proxy.testkit.ClientPrograms;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;

/**
 * Virtual clusters on one proxy in front of one real cluster: alice's clients are in team-a, bob's
 * in team-b (the gateway file places them by their SASL principal). Each tenant creates a topic
 * of the same name, produces, consumes as a group of the same name and runs a transaction, with
 * the real Java clients, kcat and confluent-kafka; neither sees a record, a topic, a group or a transactional id of
 * the other's, each is told its own cluster id, and the real cluster holds both under their
 * prefixes. Team a has an ACL file of its own, in its own names, which the proxy follows; team c
 * has a listener and SASL users of its own. A
 * principal in no virtual cluster is not served.
 */
class VirtualClustersIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    private static final String TOPIC = "orders";
    private static final String GROUP = "readers";

    @TempDir
    static Path dir;
    private static RunningProxy proxy;

    /** Team a's own ACL file, in its names: everything of its own but the topic {@code secret}. */
    private static final String TEAM_A_ACLS = """
            acls:
              - {principal: "User:alice", resourceType: TOPIC, name: "*", operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, name: "*", operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: TRANSACTIONAL_ID, name: "*", operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: CLUSTER, name: kafka-cluster, operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, name: secret, operation: All, permission: DENY}
            """;

    /** Team c's own listener, whose users (dave) are in a credentials file of its own. */
    private static int teamCPort;

    @BeforeAll
    static void startProxy() throws Exception {
        Files.writeString(dir.resolve("team-a-acls.yaml"), TEAM_A_ACLS);
        ScramUsers.credentialsFile(dir.resolve("team-c-users"), List.of("dave"));
        teamCPort = org.kafscale.proxy.testkit.FreePorts.next();
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "PLAIN,SCRAM-SHA-512",
                List.of("alice", "bob", "carol"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "a."
                    groupPrefix: "a."
                    transactionalIdPrefix: "a."
                    aclFile: team-a-acls.yaml
                  - name: team-b
                    principals: ["User:bob"]
                    topicPrefix: "b."
                    groupPrefix: "b."
                    transactionalIdPrefix: "b."
                  - name: team-c
                    listener: "127.0.0.1:%d"
                    credentialsFile: team-c-users
                    topicPrefix: "c."
                """.formatted(teamCPort)));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        for (String user : List.of("alice", "bob")) {
            try (Admin admin = Admin.create(client(user))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1), new NewTopic("kcat-" + TOPIC, 1, (short) 1),
                        new NewTopic("librdkafka-" + TOPIC, 2, (short) 1)))
                        .all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void recordsAndGroupsOfOneTenantNeverReachTheOther() throws Exception {
        // When each tenant produces to its "orders" and reads it back as its group "readers"
        Set<String> sentByAlice = produce("alice", TOPIC, 30);
        Set<String> sentByBob = produce("bob", TOPIC, 20);
        Set<String> readByAlice = consumeAsGroup("alice", TOPIC, GROUP, sentByAlice.size());
        Set<String> readByBob = consumeAsGroup("bob", TOPIC, GROUP, sentByBob.size());

        // Then each read exactly its own records
        assertEquals(sentByAlice, readByAlice);
        assertEquals(sentByBob, readByBob);
        // and the real cluster holds both tenants' topics and groups under their prefixes
        Admin real = KAFKA.cluster().admin();
        Set<String> realTopics = real.listTopics().names().get(10, TimeUnit.SECONDS);
        assertTrue(realTopics.containsAll(Set.of("a.orders", "b.orders")), realTopics.toString());
        Set<String> realGroups = real.listGroups().all().get(10, TimeUnit.SECONDS).stream()
                .map(g -> g.groupId()).collect(Collectors.toSet());
        assertTrue(realGroups.containsAll(Set.of("a.readers", "b.readers")), realGroups.toString());
        // and a tenant's group offsets name its own topic, by the tenant's name
        try (Admin admin = Admin.create(client("alice"))) {
            Set<String> committed = admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS).keySet().stream().map(tp -> tp.topic()).collect(Collectors.toSet());
            assertEquals(Set.of(TOPIC), committed);
        }
    }

    @Test
    void eachTenantListsOnlyItsOwnTopicsGroupsAndTransactionsAndHasItsOwnClusterId() throws Exception {
        // Given a transaction in each tenant under the same transactional id, and a group each
        transact("alice", "tx-1");
        transact("bob", "tx-1");
        produce("bob", TOPIC, 1);
        consumeAsGroup("bob", TOPIC, "bob-only", 1);
        String realClusterId = KAFKA.cluster().admin().describeCluster().clusterId().get(10, TimeUnit.SECONDS);
        try (Admin alice = Admin.create(client("alice")); Admin bob = Admin.create(client("bob"))) {
            // Then the topics each lists are exactly its own, by its names, with no internal topic (alice's
            // "secret" is hidden by her ACL file, and "later" too once the ACL test has run)
            Set<String> aliceTopics = new java.util.HashSet<>(alice.listTopics().names().get(10, TimeUnit.SECONDS));
            aliceTopics.remove("later");
            Set<String> aliceReal = realTopicsOf("a.");
            aliceReal.removeAll(Set.of("secret", "later"));
            assertEquals(aliceReal, aliceTopics);
            assertTrue(aliceTopics.containsAll(Set.of(TOPIC, "kcat-" + TOPIC)), aliceTopics.toString());
            assertEquals(realTopicsOf("b."), bob.listTopics().names().get(10, TimeUnit.SECONDS));
            // and the groups and transactional ids too
            Set<String> aliceGroups = alice.listConsumerGroups().all().get(10, TimeUnit.SECONDS).stream()
                    .map(ConsumerGroupListing::groupId).collect(Collectors.toSet());
            assertTrue(!aliceGroups.contains("bob-only") && aliceGroups.stream().noneMatch(g -> g.startsWith("a.")),
                    aliceGroups.toString());
            Set<String> aliceTransactions = alice.listTransactions().all().get(10, TimeUnit.SECONDS).stream()
                    .map(TransactionListing::transactionalId).collect(Collectors.toSet());
            assertEquals(Set.of("tx-1"), aliceTransactions);
            // and each is told its own cluster id, the one derived from its name, not the real one
            String aliceId = alice.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
            assertEquals(VirtualCluster.derivedClusterId("team-a"), aliceId);
            assertEquals(VirtualCluster.derivedClusterId("team-b"), bob.describeCluster().clusterId().get(10, TimeUnit.SECONDS));
            assertNotEquals(realClusterId, aliceId);
        }
        Set<String> realTransactions = KAFKA.cluster().admin().listTransactions().all().get(10, TimeUnit.SECONDS)
                .stream().map(TransactionListing::transactionalId).collect(Collectors.toSet());
        assertTrue(realTransactions.containsAll(Set.of("a.tx-1", "b.tx-1")), realTransactions.toString());
    }

    @Test
    void anotherTenantsTopicIdIsUnknown() throws Exception {
        // Given b.orders' id, as the real cluster knows it
        Uuid bobsTopic = KAFKA.cluster().admin().describeTopics(List.of("b.orders")).allTopicNames()
                .get(10, TimeUnit.SECONDS).get("b.orders").topicId();
        try (Admin alice = Admin.create(client("alice"))) {
            // When alice asks for it by id
            ExecutionException failure = assertThrows(ExecutionException.class, () -> alice.describeTopics(
                    TopicCollection.ofTopicIds(List.of(bobsTopic))).allTopicIds().get(10, TimeUnit.SECONDS));
            // Then it is unknown to her, under the id she sent
            assertInstanceOf(UnknownTopicIdException.class, failure.getCause());
            assertTrue(failure.getCause().getMessage().contains(bobsTopic.toString()), failure.getCause().getMessage());
        }
    }

    @Test
    void kcatInEachTenantReadsOnlyItsOwnRecords() {
        for (String user : List.of("alice", "bob")) {
            List<String> sasl = List.of("-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=PLAIN",
                    "-X", "sasl.username=" + user, "-X", "sasl.password=" + user + "-secret");
            List<String> produce = new ArrayList<>(List.of("-b", proxy.bootstrap(), "-t", "kcat-" + TOPIC, "-P"));
            produce.addAll(sasl);
            Kcat.Result produced = Kcat.run(Duration.ofSeconds(30), user + "-1\n" + user + "-2\n", produce);
            assertTrue(produced.succeeded(), produced.stderr());
            List<String> consume = new ArrayList<>(List.of("-b", proxy.bootstrap(), "-t", "kcat-" + TOPIC, "-C",
                    "-o", "beginning", "-e"));
            consume.addAll(sasl);
            Kcat.Result consumed = Kcat.run(Duration.ofSeconds(30), null, consume);
            assertTrue(consumed.succeeded(), consumed.stderr());
            assertEquals(List.of(user + "-1", user + "-2"), consumed.lines());
        }
    }

    @Test
    void confluentKafkaInEachTenantReadsOnlyItsOwnRecords() throws Exception {
        // Given each tenant's "librdkafka-orders" of 2 partitions, when confluent-kafka (librdkafka)
        // produces a different number of records in each and reads its topic back as a group
        Map<String, Integer> counts = Map.of("alice", 10, "bob", 6);
        for (Map.Entry<String, Integer> user : counts.entrySet()) {
            ClientPrograms.Run run = ClientPrograms.produceThenConsume(ClientFamily.CONFLUENT_KAFKA_PYTHON,
                    proxy.bootstrap(), "librdkafka-" + TOPIC, user.getValue(), 2, Duration.ofSeconds(60),
                    Map.of("security.protocol", "sasl_plaintext", "sasl.mechanisms", "SCRAM-SHA-512",
                            "sasl.username", user.getKey(), "sasl.password", user.getKey() + "-secret"));
            // Then each read back exactly what it wrote
            assertTrue(run.readEverything(), run.toString());
            assertEquals(user.getValue(), run.records().size(), run.toString());
        }
        // and the real cluster holds each tenant's records in its own prefixed topic, none in the other's
        Admin real = KAFKA.cluster().admin();
        for (Map.Entry<String, Integer> user : counts.entrySet()) {
            String realTopic = user.getKey().substring(0, 1) + ".librdkafka-" + TOPIC;
            long total = 0;
            for (int p = 0; p < 2; p++) {
                TopicPartition partition = new TopicPartition(realTopic, p);
                total += real.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                        .get(10, TimeUnit.SECONDS).offset();
            }
            assertEquals(user.getValue().longValue(), total, realTopic);
        }
    }

    @Test
    void aTenantsOwnAclFileDecidesInItsOwnNamesAndIsFollowed() throws Exception {
        // Given team a's real topics a.secret and a.later, and team a's ACL file denying "secret"
        KAFKA.cluster().createTopic("a.secret", 1);
        KAFKA.cluster().createTopic("a.later", 1);
        try (Admin admin = Admin.create(client("alice"))) {
            // Then alice does not see "secret", which her file names in her own names, but sees "later"
            Eventually.await(Duration.ofSeconds(20), "alice sees later", () -> tenantTopics(admin).contains("later"));
            assertTrue(!tenantTopics(admin).contains("secret"), tenantTopics(admin).toString());
            // and cannot write it
            Properties props = client("alice");
            props.putAll(RecordRoundTrip.idempotentProducerProperties(proxy.bootstrap()));
            props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> producer.send(new ProducerRecord<>("secret", "k", "v")).get(30, TimeUnit.SECONDS));
                assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
                assertEquals(Set.of("secret"), ((TopicAuthorizationException) refused.getCause()).unauthorizedTopics());
            }
            // When team a's file denies "later" too, the proxy follows it without a restart
            Files.writeString(dir.resolve("team-a-acls.yaml"), TEAM_A_ACLS
                    + "  - {principal: \"User:alice\", resourceType: TOPIC, name: later, operation: All, permission: DENY}\n");
            Eventually.await(Duration.ofSeconds(30), "alice no longer sees later",
                    () -> !tenantTopics(admin).contains("later"));
        }
        // and bob's virtual cluster, which has no ACL file, is not checked
        try (Admin admin = Admin.create(client("bob"))) {
            assertTrue(tenantTopics(admin).contains(TOPIC));
        }
    }

    /** The real cluster's topics under {@code prefix}, by their tenant's names. */
    private static Set<String> realTopicsOf(String prefix) throws Exception {
        return KAFKA.cluster().admin().listTopics().names().get(10, TimeUnit.SECONDS).stream()
                .filter(name -> name.startsWith(prefix)).map(name -> name.substring(prefix.length()))
                .collect(Collectors.toSet());
    }

    private static Set<String> tenantTopics(Admin admin) {
        try {
            return admin.listTopics().names().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("listing topics failed", e);
        }
    }

    @Test
    void aVirtualClustersOwnListenerChecksUsersAgainstItsOwnCredentialsFile() throws Exception {
        String teamC = "127.0.0.1:" + teamCPort;
        // dave, a user of team c's file only, works on team c's listener, in team c
        try (Admin dave = Admin.create(ScramUsers.client(teamC, "dave"))) {
            dave.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertEquals(Set.of(TOPIC), dave.listTopics().names().get(10, TimeUnit.SECONDS));
        }
        assertTrue(KAFKA.cluster().admin().listTopics().names().get(10, TimeUnit.SECONDS).contains("c." + TOPIC));
        // but not on the shared listener, whose credentials do not hold him
        assertAuthenticationFails(ScramUsers.client(proxy.bootstrap(), "dave"));
        // and alice, a user of the shared file, does not get in on team c's listener
        assertAuthenticationFails(ScramUsers.client(teamC, "alice"));
    }

    private static void assertAuthenticationFails(Properties props) {
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        try (Admin admin = Admin.create(props)) {
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> admin.listTopics().names().get(20, TimeUnit.SECONDS));
            assertInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class, failed.getCause());
        }
    }

    @Test
    void aPrincipalInNoVirtualClusterIsNotServed() {
        Properties carol = client("carol");
        carol.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        carol.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        try (Admin admin = Admin.create(carol)) {
            assertThrows(ExecutionException.class, () -> admin.listTopics().names().get(20, TimeUnit.SECONDS),
                    "carol authenticates but is in no virtual cluster");
        }
    }

    private static Properties client(String user) {
        return ScramUsers.client(proxy.bootstrap(), user);
    }

    private static Set<String> produce(String user, String topic, int count) throws Exception {
        Properties props = client(user);
        props.putAll(RecordRoundTrip.idempotentProducerProperties(proxy.bootstrap()));
        Set<String> sent = new java.util.HashSet<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                String value = user + "-" + i;
                producer.send(new ProducerRecord<>(topic, "k" + i, value)).get(30, TimeUnit.SECONDS);
                sent.add(value);
            }
        }
        return sent;
    }

    /** Commits a transaction of one record under {@code transactionalId}. */
    private static void transact(String user, String transactionalId) {
        Properties props = client(user);
        props.putAll(RecordRoundTrip.idempotentProducerProperties(proxy.bootstrap()));
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, "t", user + "-in-a-transaction"));
            producer.commitTransaction();
        }
    }

    /** Reads {@code topic} as {@code group} until {@code expected} records of the user's arrived; commits. */
    private static Set<String> consumeAsGroup(String user, String topic, String group, int expected) {
        Properties props = client(user);
        props.putAll(RecordRoundTrip.consumerProperties(proxy.bootstrap()));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Set<String> received = new java.util.HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received.stream().filter(v -> !v.contains("in-a-transaction")).count() < expected
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    assertTrue(record.value().startsWith(user + "-"), "read another tenant's record: " + record.value());
                    received.add(record.value());
                }
            }
            consumer.commitSync();
        }
        received.removeIf(v -> v.contains("in-a-transaction"));
        return received;
    }
}
