package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.S3Server;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The audit trail with real SASL (SCRAM), an ACL file and LFS over mTLS, against a real broker and
 * S3: each kind of event reaches the rolling file and the Kafka topic the proxy's own producer writes; a sink that
 * is stuck drops and counts while requests go on; with failClosed, mutating calls are refused while
 * a sink is down and go through again once it writes.
 */
class AuditIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUDIT_TOPIC = "_kafscale_audit";
    private static final String ACLS = """
            acls:
              # alice administers everything
              - {principal: "User:alice", resourceType: CLUSTER, operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, name: "*", operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, name: "*", operation: All, permission: ALLOW}
              - {principal: "User:alice", resourceType: TRANSACTIONAL_ID, name: "*", operation: All, permission: ALLOW}
              # bob only his own topics
              - {principal: "User:bob", resourceType: TOPIC, patternType: PREFIXED, name: "bob-", operation: All, permission: ALLOW}
            """;

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1, Map.of(0, Map.of(
            "transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1")));

    @TempDir
    static Path dir;

    private static RunningProxy proxy;
    private static Path auditFile;
    private static S3Server s3;
    private static TestCertificates certificates;
    private static TestCertificates.Identity uploader;
    private static final String BUCKET = "audit-lfs";
    private static final String LFS_TOPIC = "audit-media";

    @BeforeAll
    static void startProxyWithAnAuditTrail() throws Exception {
        KAFKA.cluster().createTopic(AUDIT_TOPIC, 1);
        KAFKA.cluster().createTopic(LFS_TOPIC, 1);
        s3 = S3Server.start();
        s3.createBucket(BUCKET);
        auditFile = dir.resolve("audit.jsonl");
        // LFS over mTLS: the uploader's certificate is its principal
        certificates = TestCertificates.create(dir.resolve("certs"), "audit-lfs");
        TestCertificates.Identity server = certificates.server();
        uploader = certificates.client("uploader");
        Map<String, String> settings = new HashMap<>(settings(dir.resolve("main"), """
                audit:
                  file: %s
                  topic: %s
                """.formatted(auditFile, AUDIT_TOPIC)));
        settings.putAll(Map.of(LfsConfig.HTTP_TLS_ENABLED, "true",
                LfsConfig.HTTP_TLS_CERT_FILE, server.chainFile().toString(),
                LfsConfig.HTTP_TLS_KEY_FILE, server.keyFile().toString(),
                LfsConfig.HTTP_TLS_CLIENT_CA_FILE, certificates.caFile().toString()));
        proxy = RunningProxy.start(KAFKA.cluster(), "single", RunningProxy.lfsOn(s3, BUCKET, settings));
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void everyKindOfEventReachesTheFileAndTheTopic() throws Exception {
        // Given: alice, who may do anything, runs every mutating admin call the trail records
        String topic = "audit-orders";
        TopicPartition p0 = new TopicPartition(topic, 0);
        try (Admin alice = Admin.create(ScramUsers.client(proxy.bootstrap(), "alice"))) {
            alice.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            alice.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all().get();
            alice.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET)))).all().get();
            alice.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(0))).all().get();
            alice.alterConsumerGroupOffsets("audit-group", Map.of(p0, new OffsetAndMetadata(0))).all().get();
            alice.deleteConsumerGroupOffsets("audit-group", Set.of(p0)).all().get();
            alice.deleteConsumerGroups(List.of("audit-group")).all().get();
            alice.alterClientQuotas(List.of(new ClientQuotaAlteration(new ClientQuotaEntity(Map.of(
                    ClientQuotaEntity.USER, "carol")), List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0)))))
                    .all().get();
            alice.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("carol",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "carol-secret"))).all().get();
            alice.alterPartitionReassignments(Map.of(p0, Optional.of(new NewPartitionReassignment(
                    KAFKA.cluster().brokerIds())))).all().get();
            // The broker has no authorizer: ACL changes are answered SECURITY_DISABLED, and recorded as failed.
            AclBinding binding = new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    new AccessControlEntry("User:carol", "*", AclOperation.READ, AclPermissionType.ALLOW));
            assertThrows(ExecutionException.class, () -> alice.createAcls(List.of(binding)).all().get());
            assertThrows(ExecutionException.class, () -> alice.deleteAcls(List.of(AclBindingFilter.ANY)).all().get());
            // One replica: the preferred leader leads already (ELECTION_NOT_NEEDED, which is no failure).
            try {
                alice.electLeaders(ElectionType.PREFERRED, Set.of(p0)).all().get();
            } catch (ExecutionException e) {
                assertInstanceOf(ElectionNotNeededException.class, e.getCause());
            }
            alice.fenceProducers(List.of("audit-tx")).all().get();
        }
        // a transaction aborted: EndTxn with committed false (and InitProducerId, which fences the id)
        try (KafkaProducer<String, String> producer = transactional("alice", "audit-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "v")).get();
            producer.abortTransaction();
        }
        // a failed login: alice's name with a wrong password
        Properties wrong = ScramUsers.client(proxy.bootstrap(), "alice");
        wrong.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"alice\" password=\"not-her-secret\";");
        try (Admin intruder = Admin.create(wrong)) {
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> intruder.describeCluster().clusterId().get());
            assertInstanceOf(SaslAuthenticationException.class, failed.getCause());
        }
        // bob creates a topic outside his prefix: an authorization denial, and a failed admin call
        try (Admin bob = Admin.create(ScramUsers.client(proxy.bootstrap(), "bob"))) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> bob.createTopics(List.of(new NewTopic("alice-only", 1, (short) 1))).all().get());
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
        }
        try (Admin alice = Admin.create(ScramUsers.client(proxy.bootstrap(), "alice"))) {
            alice.deleteTopics(List.of(topic)).all().get();
        }

        // an LFS upload and its download
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(certificates.clientContext(uploader)).build();
        String lfs = "https://127.0.0.1:" + proxy.runtime().lfsAddress().orElseThrow().getPort();
        HttpResponse<String> uploaded = http.send(HttpRequest.newBuilder(URI.create(lfs + "/lfs/produce"))
                .header("X-Kafka-Topic", LFS_TOPIC).POST(HttpRequest.BodyPublishers.ofString("a large payload"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, uploaded.statusCode(), uploaded.body());
        JsonNode envelope = JSON.readTree(uploaded.body());
        String objectKey = envelope.get("key").asText();
        HttpResponse<String> downloaded = http.send(HttpRequest.newBuilder(URI.create(lfs + "/lfs/download"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"bucket\":\"" + BUCKET + "\",\"key\":\"" + objectKey
                        + "\",\"integrity\":{\"sha256\":\"" + envelope.get("sha256").asText() + "\",\"size\":"
                        + "a large payload".length() + "}}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, downloaded.statusCode(), downloaded.body());

        // Then: the same events in the file and in the topic
        List<Predicate<JsonNode>> expected = List.of(
                e -> is(e, "authentication") && text(e, "principal").equals("User:alice")
                        && text(e, "outcome").equals("succeeded") && text(e, "mechanism").equals("SCRAM-SHA-512")
                        && text(e, "clientAddress").startsWith("127.0.0.1:") && !text(e, "connection").isEmpty(),
                e -> is(e, "authentication") && text(e, "principal").equals("User:alice")
                        && text(e, "outcome").equals("failed"),
                e -> is(e, "authorization_denied") && text(e, "principal").equals("User:bob")
                        && text(e, "api").equals("CreateTopics")
                        && e.get("denied").toString().contains("\"name\":\"alice-only\"")
                        && e.get("denied").toString().contains("\"operation\":\"CREATE\""),
                admin("CreateTopics", "failed", "alice-only"),
                admin("CreateTopics", "succeeded", topic),
                admin("CreatePartitions", "succeeded", topic),
                admin("IncrementalAlterConfigs", "succeeded", "retention.ms:set"),
                admin("DeleteRecords", "succeeded", topic),
                admin("OffsetCommit", "succeeded", "audit-group"),
                admin("OffsetDelete", "succeeded", "audit-group"),
                admin("DeleteGroups", "succeeded", "audit-group"),
                admin("AlterClientQuotas", "succeeded", "user=carol"),
                admin("AlterUserScramCredentials", "succeeded", "carol"),
                admin("AlterPartitionReassignments", "succeeded", topic),
                admin("CreateAcls", "failed", "User:carol"),
                admin("DeleteAcls", "failed", "acl"),
                admin("ElectLeaders", "succeeded", topic),
                admin("InitProducerId", "succeeded", "audit-tx"),
                admin("EndTxn", "succeeded", "abort"),
                admin("DeleteTopics", "succeeded", topic),
                e -> is(e, "lfs") && text(e, "action").equals("upload") && text(e, "outcome").equals("succeeded")
                        && text(e, "principal").equals("User:CN=uploader")
                        && e.path("object").path("bucket").asText().equals(BUCKET)
                        && e.path("object").path("key").asText().equals(objectKey)
                        && text(e, "topic").equals(LFS_TOPIC),
                e -> is(e, "lfs") && text(e, "action").equals("upload") && text(e, "outcome").equals("started")
                        && text(e, "clientAddress").startsWith("127.0.0.1"),
                e -> is(e, "lfs") && text(e, "action").equals("download") && text(e, "outcome").equals("succeeded")
                        && text(e, "principal").equals("User:CN=uploader") && e.path("object").path("key").asText().equals(objectKey));
        Eventually.await(DEADLINE, "every event in the file", () -> missing(expected, fileEvents(auditFile)).isEmpty());
        Eventually.await(DEADLINE, "every event in the topic", () -> missing(expected, topicEvents()).isEmpty());
        for (JsonNode event : fileEvents(auditFile)) {
            assertEquals(1, event.get("schema").asInt(), event.toString());
            assertTrue(!event.toString().contains("carol-secret") && !event.toString().contains("3600000"),
                    "no secret and no config value in " + event);
        }
        assertTrue(proxy.metric("kafscale_proxy_audit_events_written_total{sink=\"file\"") >= expected.size());
        assertTrue(proxy.metric("kafscale_proxy_audit_events_written_total{sink=\"topic\"") >= expected.size());
    }

    @Test
    void aStuckSinkDropsAndCountsWhileRequestsGoOn() throws Exception {
        // Given: a file sink on a named pipe no one reads: opening it for writing never returns
        Path fifo = dir.resolve("stuck.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor());
        try (RunningProxy stuck = RunningProxy.start(KAFKA.cluster(), "single", settings(dir.resolve("stuck"), """
                audit:
                  file: %s
                  queueCapacity: 2
                """.formatted(fifo)))) {
            // When: more events than the queue holds
            try (Admin alice = Admin.create(ScramUsers.client(stuck.bootstrap(), "alice"))) {
                for (int i = 0; i < 5; i++) {
                    alice.createTopics(List.of(new NewTopic("stuck-" + i, 1, (short) 1))).all().get();
                }
                // Then: every call was answered, and what did not fit is counted
                assertEquals(5, alice.listTopics().names().get().stream().filter(t -> t.startsWith("stuck-")).count());
            }
            Eventually.await(DEADLINE, "the drops counted",
                    () -> metric(stuck, "kafscale_proxy_audit_events_dropped_total{reason=\"queue_full\",sink=\"file\"")
                            >= 3);
            release(fifo);
        } finally {
            release(fifo);
        }
    }

    @Test
    void failClosedRefusesMutatingCallsWhileASinkIsDown() throws Exception {
        // Given: failClosed, and a file sink whose path is a directory: every write fails
        Path file = Files.createDirectories(dir.resolve("closed").resolve("audit.jsonl"));
        try (RunningProxy closed = RunningProxy.start(KAFKA.cluster(), "single", settings(dir.resolve("closed"), """
                audit:
                  file: %s
                  failClosed: true
                """.formatted(file)));
             Admin alice = Admin.create(ScramUsers.client(closed.bootstrap(), "alice"))) {
            alice.describeCluster().clusterId().get();
            Eventually.await(DEADLINE, "the sink found down",
                    () -> metric(closed, "kafscale_proxy_audit_events_dropped_total{reason=\"sink_error\",sink=\"file\"")
                            >= 1);

            // When / Then: a mutating call is refused, a read goes on
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> alice.createTopics(List.of(new NewTopic("closed-topic", 1, (short) 1))).all().get());
            assertInstanceOf(PolicyViolationException.class, refused.getCause());
            assertTrue(alice.listTopics().names().get().stream().noneMatch("closed-topic"::equals));

            // When: the sink can write again
            Files.delete(file);

            // Then: the call goes through, and is recorded
            Eventually.await(DEADLINE, "a mutating call accepted again", () -> {
                try {
                    alice.createTopics(List.of(new NewTopic("closed-topic", 1, (short) 1))).all().get();
                    return true;
                } catch (ExecutionException e) {
                    assertInstanceOf(PolicyViolationException.class, e.getCause());
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            Eventually.await(DEADLINE, "the accepted call in the file",
                    () -> fileEvents(file).stream().anyMatch(admin("CreateTopics", "succeeded", "closed-topic")));
        }
    }

    /** The proxy's settings: SCRAM for alice and bob, the ACLs above, and a gateway file of {@code gatewayYaml}. */
    private static Map<String, String> settings(Path in, String gatewayYaml) throws Exception {
        Files.createDirectories(in);
        Map<String, String> settings = new HashMap<>(ScramUsers.gatewaySettings(in, "SCRAM-SHA-512",
                List.of("alice", "bob"), gatewayYaml));
        settings.put(ProxyConfig.ACL_FILE, Files.writeString(in.resolve("acls.yaml"), ACLS).toString());
        return settings;
    }

    private static KafkaProducer<String, String> transactional(String user, String transactionalId) {
        Properties props = ScramUsers.client(proxy.bootstrap(), user);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static Predicate<JsonNode> admin(String api, String outcome, String mentioned) {
        return e -> is(e, "admin") && text(e, "api").equals(api) && text(e, "outcome").equals(outcome)
                && text(e, "principal").startsWith("User:") && e.get("resources").toString().contains(mentioned);
    }

    private static boolean is(JsonNode event, String type) {
        return text(event, "type").equals(type);
    }

    private static String text(JsonNode event, String field) {
        return event.path(field).asText("");
    }

    private static List<String> missing(List<Predicate<JsonNode>> expected, List<JsonNode> events) {
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
            if (events.stream().noneMatch(expected.get(i))) {
                missing.add("expected event #" + i);
            }
        }
        return missing;
    }

    private static List<JsonNode> fileEvents(Path file) {
        try {
            if (!Files.isRegularFile(file)) {
                return List.of();
            }
            List<JsonNode> events = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                try {
                    events.add(JSON.readTree(line));
                } catch (IOException partial) {
                    // The last line while the sink is still writing it: read again on the next try.
                }
            }
            return events;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every record of the audit topic, read straight from the broker. */
    private static List<JsonNode> topicEvents() {
        return AuditTopic.events(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers()),
                AUDIT_TOPIC);
    }

    private static double metric(RunningProxy running, String prefix) {
        try {
            return running.metric(prefix);
        } catch (AssertionError notYet) {
            return 0;
        }
    }

    /** Opens the pipe for reading, so the sink's thread blocked in opening it goes on and ends. */
    private static void release(Path fifo) {
        Thread reader = new Thread(() -> {
            try (InputStream in = new FileInputStream(fifo.toFile())) {
                in.transferTo(java.io.OutputStream.nullOutputStream());
            } catch (IOException ignored) {
                // Only there to let the writer go.
            }
        }, "audit-fifo-reader");
        reader.setDaemon(true);
        reader.start();
    }
}
