package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.TempDirs;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * Every security layer at once, as an operator of issue 16 runs it: clients reach the proxy over
 * SASL_SSL (TLS on the listener, SCRAM-SHA-512 terminated at the proxy), the proxy authorizes each
 * request against the ACL file for the client's SASL principal, and it speaks SASL_SSL with its own
 * identity to three SASL_SSL brokers. Two principals: alice may write and read her topic, bob may
 * only read it; neither may see the other topic.
 */
@Tag(RunningProxy.TLS_TAG)
class SecuredEndToEndIT {
    private static final Path DIR = tempDir();
    private static final String TOPIC = "orders";
    private static final String HIDDEN = "payroll";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withSecurity(3, () -> BrokerSecurity
            .saslSsl(TestCertificates.create(DIR.resolve("brokers")))
            .withScramUser("kafscale-proxy", "proxy-secret"));

    private static TestCertificates listenerCertificates;
    private static Path credentials;
    private static Path acls;

    @BeforeAll
    static void credentialsAndRules() throws Exception {
        listenerCertificates = TestCertificates.create(DIR.resolve("listener"));
        credentials = DIR.resolve("sasl-users");
        List<String> lines = new ArrayList<>();
        for (String user : List.of("alice", "bob")) {
            lines.add(user + " SCRAM-SHA-512 " + ScramCredentialUtils.credentialToString(
                    new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential(user + "-secret", 4096)));
        }
        Files.write(credentials, lines);
        acls = Files.writeString(DIR.resolve("acl.yaml"), """
                acls:
                  - {principal: "User:alice", resourceType: TOPIC, name: "orders", operation: All, permission: ALLOW}
                  - {principal: "User:alice", resourceType: GROUP, patternType: PREFIXED, name: "alice-", operation: Read, permission: ALLOW}
                  - {principal: "User:bob", resourceType: TOPIC, name: "orders", operation: Read, permission: ALLOW}
                  - {principal: "User:bob", resourceType: GROUP, patternType: PREFIXED, name: "bob-", operation: Read, permission: ALLOW}
                """);
        KAFKA.cluster().createTopic(TOPIC, 3);
        KAFKA.cluster().createTopic(HIDDEN, 1);
    }

    @AfterAll
    static void deleteFiles() {
        TempDirs.deleteRecursively(DIR);
    }

    @Test
    void alicesRecordsGoThroughEveryLayerAndBobMayReadButNotWrite() throws Exception {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", proxySettings())) {
            // When alice produces over SASL_SSL, through the ACLs, to the SASL_SSL brokers
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(proxy, "alice"))) {
                for (int i = 0; i < 60; i++) {
                    String value = "order-" + i;
                    producer.send(new ProducerRecord<>(TOPIC, Integer.toString(i), value)).get();
                    sent.add(value);
                }
            }

            // Then alice (her group) and bob (his group) each read all of them
            assertEquals(Set.copyOf(sent), Set.copyOf(consumeAll(proxy, "alice", "alice-readers", sent.size())));
            assertEquals(Set.copyOf(sent), Set.copyOf(consumeAll(proxy, "bob", "bob-readers", sent.size())));

            // And bob may not write: Kafka's own exception, nothing appended. (Not idempotent: an
            // idempotent producer with no Write anywhere is refused its producer id first, with
            // CLUSTER_AUTHORIZATION_FAILED, as a broker refuses it, KIP-679.)
            Map<String, Object> bobs = producerConfig(proxy, "bob");
            bobs.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(bobs)) {
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> producer.send(new ProducerRecord<>(TOPIC, "k", "from bob")).get());
                assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
            }

            // And neither sees the topic no rule names
            for (String user : List.of("alice", "bob")) {
                try (Admin admin = Admin.create(clientConfig(proxy, user))) {
                    Set<String> names = admin.listTopics().names().get();
                    assertTrue(names.contains(TOPIC), user + " sees " + names);
                    assertFalse(names.contains(HIDDEN), user + " sees " + names);
                }
            }
            // And the readiness probe proves the read path through every layer too (TLS, its own
            // SASL login, exempt from the ACLs): a real Fetch, not only a broker's ApiVersions
            Eventually.await(Duration.ofSeconds(30), "/readyz to prove the read path",
                    () -> proxy.healthStatus("/readyz") == 200
                            && proxy.healthBody("/readyz").contains("read path proven: fetched"));
        }
    }

    @Test
    void aWrongPasswordIsRefusedWithoutReachingTheRules() throws Exception {
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", proxySettings())) {
            Map<String, Object> config = clientConfig(proxy, "alice");
            config.put(SaslConfigs.SASL_JAAS_CONFIG, jaas("alice", "not-her-password"));
            config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 5000);
            config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
            try (Admin admin = Admin.create(config)) {
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> admin.listTopics().names().get());
                assertInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class, refused.getCause());
            }
        }
    }

    private static Map<String, String> proxySettings() {
        TestCertificates.Identity server = listenerCertificates.server();
        Map<String, String> settings = new HashMap<>();
        settings.put("KAFSCALE_PROXY_TLS_ENABLED", "true");
        settings.put("KAFSCALE_PROXY_TLS_CERT_FILE", server.certificateFile().toString());
        settings.put("KAFSCALE_PROXY_TLS_KEY_FILE", server.keyFile().toString());
        settings.put("KAFSCALE_PROXY_SASL_MECHANISMS", "SCRAM-SHA-512");
        settings.put("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", credentials.toString());
        settings.put("KAFSCALE_PROXY_ACL_FILE", acls.toString());
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
        settings.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", KAFKA.cluster().security().certificates().caFile().toString());
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "SCRAM-SHA-512");
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_USERNAME", "kafscale-proxy");
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD", "proxy-secret");
        return settings;
    }

    /** What a Java client sets to reach the proxy over SASL_SSL as {@code user}, trusting the listener's CA. */
    private static Map<String, Object> clientConfig(RunningProxy proxy, String user) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        config.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, listenerCertificates.trustStoreFile().toString());
        config.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        config.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        config.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, jaas(user, user + "-secret"));
        return config;
    }

    private static Map<String, Object> producerConfig(RunningProxy proxy, String user) {
        Map<String, Object> config = clientConfig(proxy, user);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        return config;
    }

    private static List<String> consumeAll(RunningProxy proxy, String user, String group, int expected) {
        Map<String, Object> config = clientConfig(proxy, user);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            Eventually.await(Duration.ofSeconds(60), user + " to read " + expected + " records", () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return values.size() >= expected;
            });
        }
        return values;
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("secured-e2e");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }
}
