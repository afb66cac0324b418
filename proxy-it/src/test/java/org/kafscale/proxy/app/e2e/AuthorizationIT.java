package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Materialized;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;

/**
 * Authorization at the proxy with real brokers and Java clients, for two principals (alice and
 * bob; see {@link ClientIdPrincipals} for how a connection gets its principal until the listener
 * authenticates): what the ACL file allows goes through, what it does not is refused with the
 * exception a Kafka broker with the same ACLs makes the client raise.
 */
class AuthorizationIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** The first share group of a fresh cluster waits for the share coordinator's state topic. */
    private static final Duration SHARE_DEADLINE = Duration.ofSeconds(90);
    private static final String ACLS = """
            acls:
              # alice: everything on her own topics, her groups and transactional ids; writes to the shared topic
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: "alice-", operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, patternType: PREFIXED, name: "alice-", operation: Read, permission: ALLOW}
              - {principal: "User:alice", resourceType: TRANSACTIONAL_ID, patternType: PREFIXED, name: "alice-", operation: Write, permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, name: "shared", operation: Write, permission: ALLOW}
              # bob: reads the shared topic in his own groups, writes only his own topics
              - {principal: "User:bob", resourceType: TOPIC, name: "shared", operation: Read, permission: ALLOW}
              - {principal: "User:bob", resourceType: TOPIC, patternType: PREFIXED, name: "bob-", operation: Write, permission: ALLOW}
              - {principal: "User:bob", resourceType: GROUP, patternType: PREFIXED, name: "bob-", operation: Read, permission: ALLOW}
              # clients that are not authenticated (kcat below): only the kcat- topics
              - {principal: "User:ANONYMOUS", resourceType: TOPIC, patternType: PREFIXED, name: "kcat-", operation: All, permission: ALLOW}
              # nobody writes to bob-audit, whatever else they may do
              - {principal: "User:*", resourceType: TOPIC, name: "bob-audit", operation: Write, permission: DENY}
            """;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1, Map.of(0, Map.of(
            // One broker: the share groups' state topic with one replica.
            "share.coordinator.state.topic.replication.factor", "1", "share.coordinator.state.topic.min.isr", "1")));

    @TempDir
    static Path dir;

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private static RunningProxy proxy;

    @BeforeAll
    static void startProxyWithAcls() throws IOException {
        for (String topic : List.of("alice-orders", "shared", "bob-out", "bob-audit", "kcat-lines")) {
            KAFKA.cluster().createTopic(topic, 1);
        }
        Path acls = Files.writeString(dir.resolve("acls.yaml"), ACLS);
        proxy = RunningProxy.start(KAFKA.cluster(), "single", Map.of(ProxyConfig.ACL_FILE, acls.toString()),
                ClientIdPrincipals.AROUND_HANDLERS);
    }

    @AfterAll
    static void stopProxy() {
        proxy.close();
    }

    @Test
    void producesWhereWriteIsAllowedAndIsRefusedTopicAuthorizationElsewhere() throws Exception {
        try (KafkaProducer<String, String> alice = producer("alice", "p1");
             KafkaProducer<String, String> bob = producer("bob", "p1")) {
            // When / Then: each to a topic it may write
            alice.send(new ProducerRecord<>("alice-orders", "k", "from alice")).get();
            bob.send(new ProducerRecord<>("bob-out", "k", "from bob")).get();
            // bob may read (so describe) the shared topic, not write it: refused by the Produce
            assertCause(TopicAuthorizationException.class, () -> bob.send(new ProducerRecord<>("shared", "k", "v")).get());
            // alice's topic bob may not even describe: refused by the Metadata
            assertCause(TopicAuthorizationException.class,
                    () -> bob.send(new ProducerRecord<>("alice-orders", "k", "v")).get());
            // a DENY wins over bob's Write on bob-*
            assertCause(TopicAuthorizationException.class,
                    () -> bob.send(new ProducerRecord<>("bob-audit", "k", "v")).get());
        }
        assertTrue(proxy.metric("kafscale_proxy_authorization_refusals_total{api=\"Produce\",resource_type=\"TOPIC\"") >= 2);
    }

    @Test
    void consumesAsAGroupWhereReadIsAllowedAndIsRefusedForAnotherGroupOrTopic() throws Exception {
        // Given: alice wrote to the shared topic
        try (KafkaProducer<String, String> alice = producer("alice", "p2")) {
            alice.send(new ProducerRecord<>("shared", "k", "for everyone")).get();
        }
        // When / Then: bob reads it in his own group
        try (KafkaConsumer<String, String> bob = consumer("bob", "c1", "bob-readers")) {
            bob.subscribe(List.of("shared"));
            List<String> values = new ArrayList<>();
            Eventually.await(DEADLINE, "bob reads the shared topic", () -> {
                bob.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return values.contains("for everyone");
            });
        }
        // ... but not in alice's group
        try (KafkaConsumer<String, String> bob = consumer("bob", "c2", "alice-readers")) {
            bob.subscribe(List.of("shared"));
            assertThrows(GroupAuthorizationException.class, () -> pollUntilThrown(bob));
        }
        // ... and not alice's topic, even in his own group
        try (KafkaConsumer<String, String> bob = consumer("bob", "c3", "bob-readers-2")) {
            bob.subscribe(List.of("alice-orders"));
            assertThrows(TopicAuthorizationException.class, () -> pollUntilThrown(bob));
        }
        // alice, with Read on her group and All on her topic, joins and reads
        try (KafkaProducer<String, String> alice = producer("alice", "p3")) {
            alice.send(new ProducerRecord<>("alice-orders", "k", "hers")).get();
        }
        try (KafkaConsumer<String, String> alice = consumer("alice", "c1", "alice-readers")) {
            alice.subscribe(List.of("alice-orders"));
            List<String> values = new ArrayList<>();
            Eventually.await(DEADLINE, "alice reads her topic in her group", () -> {
                alice.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return values.contains("hers");
            });
            alice.commitSync();
        }
    }

    @Test
    void transactionalProduceNeedsWriteOnTheTransactionalId() throws Exception {
        // Given / When: alice's transaction on her own id commits
        try (KafkaProducer<String, String> alice = transactionalProducer("alice", "alice-tx")) {
            alice.initTransactions();
            alice.beginTransaction();
            alice.send(new ProducerRecord<>("alice-orders", "k", "in a transaction")).get();
            alice.commitTransaction();
        }
        // Then: a read_committed consumer sees it
        try (KafkaConsumer<String, String> alice = consumer("alice", "c2", "alice-committed")) {
            alice.subscribe(List.of("alice-orders"));
            List<String> values = new ArrayList<>();
            Eventually.await(DEADLINE, "the committed record is read", () -> {
                for (ConsumerRecord<String, String> r : alice.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return values.contains("in a transaction");
            });
        }
        // bob may not use alice's transactional ids
        try (KafkaProducer<String, String> bob = transactionalProducer("bob", "alice-tx-2")) {
            assertThrows(TransactionalIdAuthorizationException.class, bob::initTransactions);
        }
    }

    @Test
    void metadataListsOnlyTheTopicsThePrincipalMayDescribe() throws Exception {
        try (Admin alice = admin("alice"); Admin bob = admin("bob")) {
            // When
            Set<String> aliceSees = alice.listTopics().names().get();
            Set<String> bobSees = bob.listTopics().names().get();
            // Then
            assertTrue(aliceSees.containsAll(List.of("alice-orders", "shared")), aliceSees.toString());
            assertFalse(aliceSees.contains("bob-out"), aliceSees.toString());
            assertTrue(bobSees.containsAll(List.of("shared", "bob-out")), bobSees.toString());
            assertFalse(bobSees.contains("alice-orders"), bobSees.toString());
            // A topic asked for by name that bob may not describe is refused, as a broker refuses it
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> bob.describeTopics(List.of("alice-orders")).allTopicNames().get());
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
        }
    }

    @Test
    void aProduceAndAFetchPartlyAllowedAreSplitTheRefusedTopicsAnsweredWithTheirError() throws Exception {
        try (RawKafkaConnection bob = new RawKafkaConnection(proxy.port(), "as-bob-raw")) {
            // Given: one Produce naming a topic bob may write and one he may only read
            ProduceRequestData produce = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
            for (String topic : List.of("bob-out", "shared")) {
                produce.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                        new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
                                Compression.NONE, new SimpleRecord("split".getBytes(StandardCharsets.UTF_8)))))));
            }
            // When
            ProduceResponseData produced = bob.send(produce, (short) 11);
            // Then: the allowed topic was written, the other refused, in one answer
            Map<String, Short> produceErrors = new HashMap<>();
            produced.responses().forEach(t -> produceErrors.put(t.name(), t.partitionResponses().get(0).errorCode()));
            assertEquals(Map.of("bob-out", Errors.NONE.code(), "shared", Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                    produceErrors);

            // Given: one Fetch naming a topic bob may read (with a record in it) and one he may not
            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1)
                    .setMaxBytes(1 << 20).setSessionEpoch(-1);
            for (String topic : List.of("shared", "alice-orders")) {
                fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20))));
            }
            try (KafkaProducer<String, String> alice = producer("alice", "p4")) {
                alice.send(new ProducerRecord<>("shared", "k", "fetched")).get();
            }
            // When
            FetchResponseData fetched = bob.send(fetch, (short) 12);
            // Then: records of the allowed topic, the refusal for the other
            Map<String, FetchResponseData.PartitionData> byTopic = new HashMap<>();
            fetched.responses().forEach(t -> byTopic.put(t.topic(), t.partitions().get(0)));
            assertEquals(Set.of("shared", "alice-orders"), byTopic.keySet());
            assertEquals(Errors.NONE.code(), byTopic.get("shared").errorCode());
            assertTrue(((MemoryRecords) byTopic.get("shared").records()).sizeInBytes() > 0, "records of shared");
            assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), byTopic.get("alice-orders").errorCode());
            assertEquals(-1, byTopic.get("alice-orders").highWatermark());
        }
    }

    @Test
    void aChangedAclFileIsAppliedAndOneThatDoesNotParseKeepsTheRulesInForce() throws Exception {
        // Given: a proxy of its own whose file lets carol do nothing yet
        Path acls = Files.writeString(dir.resolve("reloaded.yaml"), "acls: []\n");
        try (RunningProxy own = RunningProxy.start(KAFKA.cluster(), "single", Map.of(ProxyConfig.ACL_FILE,
                acls.toString(), ProxyConfig.ACL_RELOAD_MS, "100"), ClientIdPrincipals.AROUND_HANDLERS);
             Admin carol = admin("carol", own)) {
            assertFalse(carol.listTopics().names().get().contains("shared"));
            // When: the file grants carol Describe on the shared topic
            Files.writeString(acls, "acls:\n  - {principal: \"User:carol\", resourceType: TOPIC, name: shared, "
                    + "operation: Describe, permission: ALLOW}\n");
            // Then
            Eventually.await(DEADLINE, "carol sees the shared topic",
                    () -> assertTrue(carol.listTopics().names().get().contains("shared")));
            // When: the file is broken
            Files.writeString(acls, "acls:\n  - {principal: carol, resourceType: TOPIC}\n");
            // Then: the rules in force stay (the broken file is logged, not applied)
            logs.awaitLine(DEADLINE, "not applied");
            assertTrue(carol.listTopics().names().get().contains("shared"));
        }
    }

    @Test
    void theReadinessProbeProvesTheReadPathThoughNoRuleGrantsItAnything() throws Exception {
        // Given: records in a topic no rule lets anyone read
        KAFKA.cluster().createTopic("probed", 1);
        try (Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                KAFKA.cluster().bootstrapServers()))) {
            assertTrue(direct.listTopics().names().get().contains("probed"));
        }
        try (KafkaProducer<String, String> direct = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            direct.send(new ProducerRecord<>("probed", "k", "v")).get();
        }
        try (RunningProxy own = RunningProxy.start(KAFKA.cluster(), "single", Map.of(
                ProxyConfig.ACL_FILE, Files.writeString(dir.resolve("none.yaml"), "acls: []\n").toString(),
                ProxyConfig.READY_PROBE_TOPIC, "probed"), ClientIdPrincipals.AROUND_HANDLERS)) {
            // Then: the proxy's own probe is not subject to the ACLs, so the proxy becomes ready
            Eventually.await(DEADLINE, "/readyz answers 200", () -> assertEquals(200, own.healthStatus("/readyz"),
                    own.healthBody("/readyz")));
        }
    }

    @Test
    void librdkafkaSeesOnlyItsTopicsAndProducesAndConsumesThem() {
        // Given: kcat, which is not authenticated, so User:ANONYMOUS
        Assumptions.assumeTrue(Kcat.isAvailable(), "kcat is not installed");
        // When
        Kcat.Result metadata = Kcat.metadata(proxy.bootstrap());
        Kcat.Result produced = Kcat.produce(proxy.bootstrap(), "kcat-lines", List.of("one", "two"));
        Kcat.Result consumed = Kcat.consume(proxy.bootstrap(), "kcat-lines", 2);
        // (librdkafka keeps a refused message until its timeout; a short one keeps the test short)
        Kcat.Result refused = Kcat.run(Duration.ofSeconds(30), "not allowed\n", List.of("-b", proxy.bootstrap(), "-t",
                "shared", "-P", "-X", "message.timeout.ms=3000"));
        // Then
        assertTrue(metadata.succeeded(), metadata.stderr());
        assertTrue(metadata.stdout().contains("topic \"kcat-lines\""), metadata.stdout());
        assertFalse(metadata.stdout().contains("alice-orders"), metadata.stdout());
        assertTrue(produced.succeeded(), produced.stderr());
        assertTrue(consumed.succeeded(), consumed.stderr());
        assertEquals(List.of("one", "two"), consumed.lines());
        assertFalse(refused.succeeded(), refused.stdout());
        assertTrue(refused.stderr().contains("authoriz"), refused.stderr());
    }

    @Test
    void adminRequestsAreAuthorizedPerResourceAndAgainstTheCluster() throws Exception {
        try (Admin alice = admin("alice"); Admin bob = admin("bob")) {
            // Topics: Create on the topic (alice's All on alice-*), not Write (bob's on bob-*)
            alice.createTopics(List.of(new NewTopic("alice-created", 1, (short) 1))).all().get();
            assertCauseOf(TopicAuthorizationException.class,
                    bob.createTopics(List.of(new NewTopic("bob-created", 1, (short) 1))).all());
            // Configs: DescribeConfigs on the topic, which Read does not give
            ConfigResource shared = new ConfigResource(ConfigResource.Type.TOPIC, "shared");
            ConfigResource aliceOrders = new ConfigResource(ConfigResource.Type.TOPIC, "alice-orders");
            assertFalse(alice.describeConfigs(List.of(aliceOrders)).all().get().get(aliceOrders).entries().isEmpty());
            var mixed = bob.describeConfigs(List.of(shared, aliceOrders)).values();
            assertCauseOf(TopicAuthorizationException.class, mixed.get(shared));
            assertCauseOf(TopicAuthorizationException.class, mixed.get(aliceOrders));
            // The cluster's own APIs need a CLUSTER rule
            assertCauseOf(ClusterAuthorizationException.class, bob.describeAcls(AclBindingFilter.ANY).values());
            // Group listings show only what the principal may describe
            Set<String> groups = new java.util.HashSet<>();
            bob.listGroups().all().get().forEach(g -> groups.add(g.groupId()));
            assertTrue(groups.stream().noneMatch(g -> g.startsWith("alice-")), groups.toString());
        }
    }

    @Test
    void aShareConsumerReadsInItsOwnGroupAndIsRefusedAnotherPrincipalsGroup() throws Exception {
        // Given: records in alice's topic and her share group starting at the earliest offset
        KAFKA.cluster().createTopic("alice-queue", 1);
        KAFKA.cluster().admin().incrementalAlterConfigs(Map.of(
                new ConfigResource(ConfigResource.Type.GROUP, "alice-share"), List.of(new AlterConfigOp(
                        new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                .all().get();
        try (KafkaProducer<String, String> alice = producer("alice", "p5")) {
            alice.send(new ProducerRecord<>("alice-queue", "k", "queued")).get();
        }
        // When / Then: alice reads it as a member of her share group
        try (KafkaShareConsumer<String, String> alice = shareConsumer("alice", "s1", "alice-share")) {
            alice.subscribe(List.of("alice-queue"));
            List<String> values = new ArrayList<>();
            Eventually.await(SHARE_DEADLINE, "alice's share consumer reads the record", () -> {
                alice.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return values.contains("queued");
            });
            alice.commitSync();
        }
        // bob may not join her group
        try (KafkaShareConsumer<String, String> bob = shareConsumer("bob", "s1", "alice-share")) {
            bob.subscribe(List.of("shared"));
            assertThrows(GroupAuthorizationException.class, () -> {
                long end = System.nanoTime() + DEADLINE.toNanos();
                while (System.nanoTime() < end) {
                    bob.poll(Duration.ofMillis(200));
                }
            });
        }
    }

    @Test
    void aShareConsumerReadsTheTopicsItMayReadAndIsRefusedTheOneItMayOnlyDescribe() throws Exception {
        // Given: a record in the shared topic, bob's share group from the earliest offset, subscribed to
        // the shared topic (Read) and to bob-out (Write, so Describe, not Read)
        shareFromEarliest("bob-share");
        try (KafkaProducer<String, String> alice = producer("alice", "p6")) {
            alice.send(new ProducerRecord<>("shared", "k", "for bob's share group")).get();
        }
        List<String> values = new ArrayList<>();
        List<TopicAuthorizationException> refusals = new ArrayList<>();
        try (KafkaShareConsumer<String, String> bob = shareConsumer("bob", "s2", "bob-share")) {
            bob.subscribe(List.of("shared", "bob-out"));
            // When
            Eventually.await(SHARE_DEADLINE, "bob reads the shared topic and is refused bob-out", () -> {
                try {
                    bob.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                } catch (TopicAuthorizationException e) {
                    refusals.add(e);
                }
                return values.contains("for bob's share group") && !refusals.isEmpty();
            });
            bob.commitSync();
        }
        // Then: the refusal names only the topic he may not read
        assertEquals(Set.of("bob-out"), refusals.get(0).unauthorizedTopics());
    }

    @Test
    void shareGroupOffsetsAreListedAlteredAndDeletedOnlyWithTheRightsKafkaAsks() throws Exception {
        // Given: bob's share group, which has read the shared topic, and no member now
        shareFromEarliest("bob-offsets");
        try (KafkaProducer<String, String> alice = producer("alice", "p7")) {
            alice.send(new ProducerRecord<>("shared", "k", "for bob's offsets")).get();
        }
        try (KafkaShareConsumer<String, String> bob = shareConsumer("bob", "s3", "bob-offsets")) {
            bob.subscribe(List.of("shared"));
            Eventually.await(SHARE_DEADLINE, "bob's share group reads a record",
                    () -> !bob.poll(Duration.ofMillis(200)).isEmpty());
            bob.commitSync();
        }
        TopicPartition shared = new TopicPartition("shared", 0);
        try (Admin bob = admin("bob")) {
            // When / Then: Describe on his group lists its offsets; alice's group is refused
            Eventually.await(DEADLINE, "bob's group's offsets are listed", () -> assertTrue(bob.listShareGroupOffsets(
                    Map.of("bob-offsets", new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo("bob-offsets").get()
                    .containsKey(shared)));
            assertCauseOf(GroupAuthorizationException.class, bob.listShareGroupOffsets(Map.of(
                    "alice-share", new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo("alice-share"));
            // Read on the group and on the topic alters an offset; a topic he may not read is refused alone
            bob.alterShareGroupOffsets("bob-offsets", Map.of(shared, 0L)).all().get();
            assertCauseOf(TopicAuthorizationException.class, bob.alterShareGroupOffsets("bob-offsets",
                    Map.of(new TopicPartition("bob-out", 0), 0L)).partitionResult(new TopicPartition("bob-out", 0)));
            // Read on the group does not give Delete
            assertCauseOf(GroupAuthorizationException.class, bob.deleteShareGroupOffsets("bob-offsets", Set.of("shared")).all());
        }
    }

    @Test
    void aStreamsApplicationRunsInItsOwnGroupAndIsRefusedInternalTopicsItMayNotCreate() throws Exception {
        // Given: alice's stateful application on the streams protocol (its changelog topic is alice-app-counts-changelog)
        KAFKA.cluster().createTopic("alice-words", 1);
        KAFKA.cluster().createTopic("alice-counts", 1);
        try (KafkaStreams alice = countingApplication("alice", "alice-app", "alice-words", "alice-counts", new ArrayList<>())) {
            // When
            alice.start();
            // Then: it runs, and the broker created the changelog topic alice may create
            Eventually.await(Duration.ofSeconds(90), "alice's application running",
                    () -> alice.state() == KafkaStreams.State.RUNNING);
            assertTrue(KAFKA.cluster().admin().listTopics().names().get().contains("alice-app-counts-changelog"));
        }
        // Given: bob's application counting the shared topic, whose changelog (bob-app-counts-changelog)
        // bob may not create (Write on bob-* gives no Create)
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (KafkaStreams bob = countingApplication("bob", "bob-app", "shared", "bob-out", failures)) {
            // When
            bob.start();
            // Then: its heartbeat is refused with the topic error, before the broker creates the topic
            Eventually.await(Duration.ofSeconds(60), "bob's application fails on the refusal",
                    () -> failures.stream().anyMatch(f -> hasCause(f, TopicAuthorizationException.class)));
        }
        assertFalse(KAFKA.cluster().admin().listTopics().names().get().contains("bob-app-counts-changelog"));
    }

    private static KafkaStreams countingApplication(String user, String application, String input, String output,
                                                    List<Throwable> failures) throws IOException {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input).groupByKey().count(Materialized.as("counts")).toStream()
                .mapValues(String::valueOf).to(output);
        Properties props = ClientIdPrincipals.clientAs(user, application);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, application);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(dir, "streams-" + application).toString());
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setUncaughtExceptionHandler(e -> {
            failures.add(e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        return streams;
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static void shareFromEarliest(String group) throws Exception {
        KAFKA.cluster().admin().incrementalAlterConfigs(Map.of(
                new ConfigResource(ConfigResource.Type.GROUP, group), List.of(new AlterConfigOp(
                        new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                .all().get();
    }

    private static void pollUntilThrown(KafkaConsumer<String, String> consumer) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < end) {
            consumer.poll(Duration.ofMillis(200));
        }
        throw new AssertionError("the consumer was never refused");
    }

    private static void assertCause(Class<? extends Throwable> expected, org.junit.jupiter.api.function.Executable call) {
        ExecutionException e = assertThrows(ExecutionException.class, call);
        assertInstanceOf(expected, e.getCause(), String.valueOf(e.getCause()));
    }

    private static void assertCauseOf(Class<? extends Throwable> expected,
                                      org.apache.kafka.common.KafkaFuture<?> future) {
        assertCause(expected, future::get);
    }

    private static KafkaProducer<String, String> producer(String user, String role) {
        Properties props = ClientIdPrincipals.clientAs(user, role);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static KafkaProducer<String, String> transactionalProducer(String user, String transactionalId) {
        Properties props = ClientIdPrincipals.clientAs(user, transactionalId);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(String user, String role, String group) {
        Properties props = ClientIdPrincipals.clientAs(user, role);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static KafkaShareConsumer<String, String> shareConsumer(String user, String role, String group) {
        Properties props = ClientIdPrincipals.clientAs(user, role);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static Admin admin(String user) {
        return admin(user, proxy);
    }

    private static Admin admin(String user, RunningProxy through) {
        Properties props = ClientIdPrincipals.clientAs(user, "admin");
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, through.bootstrap());
        return Admin.create(props);
    }
}
