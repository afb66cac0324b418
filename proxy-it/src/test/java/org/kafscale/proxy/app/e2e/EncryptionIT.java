package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.SecretKeyStores;

/**
 * Record encryption with real clients, a real broker and SASL users: alice and bob share team-a,
 * whose {@code secret.*} topics are encrypted with a KEK from a PKCS#12 file; only alice reads
 * them in plaintext.
 */
class EncryptionIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @TempDir
    static Path dir;
    private static RunningProxy proxy;

    @BeforeAll
    static void startProxy() throws Exception {
        Path keystore = SecretKeyStores.aesKey(dir.resolve("kek.p12"), "kek-1", "changeit");
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice", "bob"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice", "User:bob"]
                    topicPrefix: "a."
                encryption:
                  - topics: "a\\\\.secret\\\\..*"
                    kek: {keystore: %1$s, password: changeit, alias: kek-1}
                    allow: ["User:alice"]
                  - topics: "a\\\\.vault\\\\..*"
                    kek: {keystore: %1$s, password: changeit, alias: kek-1}
                    allow: ["User:alice"]
                    headers: true
                """.formatted(keystore.getFileName())));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        KAFKA.cluster().admin().createTopics(List.of(new NewTopic("a.secret.orders", 1, (short) 1),
                new NewTopic("a.secret.around", 1, (short) 1),
                new NewTopic("a.secret.tx", 1, (short) 1),
                new NewTopic("a.vault.events", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aRecordProducedThroughTheProxyIsCiphertextAtTheBrokerAndPlaintextOnlyForTheAllowed() throws Exception {
        // Given alice produces three compressed records through the proxy
        Properties props = ScramUsers.client(proxy.bootstrap(), "alice");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>("secret.orders", utf8("k" + i), utf8("card-" + i))).get();
            }
        }

        // Then the broker holds ciphertext with the envelope header
        List<ConsumerRecord<byte[], byte[]>> stored = read(direct(), "a.secret.orders", 3);
        for (ConsumerRecord<byte[], byte[]> record : stored) {
            assertFalse(new String(record.value(), StandardCharsets.UTF_8).contains("card-"));
            assertNotNull(record.headers().lastHeader("kafscale.enc"));
        }

        // and alice reads the plaintext through the proxy, without the header
        List<ConsumerRecord<byte[], byte[]>> alice = read(ScramUsers.client(proxy.bootstrap(), "alice"),
                "secret.orders", 3);
        for (int i = 0; i < 3; i++) {
            assertEquals("card-" + i, new String(alice.get(i).value(), StandardCharsets.UTF_8));
            assertEquals("k" + i, new String(alice.get(i).key(), StandardCharsets.UTF_8));
            assertNull(alice.get(i).headers().lastHeader("kafscale.enc"));
            assertEquals(stored.get(i).offset(), alice.get(i).offset());
        }

        // and bob, of the same virtual cluster but not allowed, reads the ciphertext as stored
        List<ConsumerRecord<byte[], byte[]>> bob = read(ScramUsers.client(proxy.bootstrap(), "bob"),
                "secret.orders", 3);
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(stored.get(i).value(), bob.get(i).value());
            assertNotNull(bob.get(i).headers().lastHeader("kafscale.enc"));
        }
    }

    @Test
    void withHeadersTheHeadersAreCiphertextAtTheBrokerAndRestoredForTheAllowed() throws Exception {
        // Given alice produces a record with headers to a topic whose rule seals headers too
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(ScramUsers.client(proxy.bootstrap(), "alice"),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("vault.events", utf8("k"), utf8("payload"));
            record.headers().add("customer", utf8("c-4711")).add("trace", utf8("span-9"));
            producer.send(record).get();
        }

        // Then the broker holds the envelope as the only header, the header values in no clear form
        ConsumerRecord<byte[], byte[]> stored = read(direct(), "a.vault.events", 1).get(0);
        assertEquals(List.of("kafscale.enc"), keys(stored));
        String raw = new String(stored.value(), StandardCharsets.ISO_8859_1);
        assertFalse(raw.contains("c-4711") || raw.contains("span-9") || raw.contains("payload"), raw);

        // and alice reads the value and both headers back, in order
        ConsumerRecord<byte[], byte[]> alice = read(ScramUsers.client(proxy.bootstrap(), "alice"), "vault.events", 1)
                .get(0);
        assertEquals("payload", new String(alice.value(), StandardCharsets.UTF_8));
        assertEquals(List.of("customer", "trace"), keys(alice));
        assertEquals("c-4711", new String(alice.headers().lastHeader("customer").value(), StandardCharsets.UTF_8));
        assertEquals("span-9", new String(alice.headers().lastHeader("trace").value(), StandardCharsets.UTF_8));

        // while bob gets the record as stored
        ConsumerRecord<byte[], byte[]> bob = read(ScramUsers.client(proxy.bootstrap(), "bob"), "vault.events", 1).get(0);
        assertEquals(List.of("kafscale.enc"), keys(bob));
        assertArrayEquals(stored.value(), bob.value());
    }

    private static List<String> keys(ConsumerRecord<byte[], byte[]> record) {
        List<String> keys = new ArrayList<>();
        record.headers().forEach(h -> keys.add(h.key()));
        return keys;
    }

    @Test
    void transactionsThroughTheProxyStayTransactionsOverEncryptedRecords() throws Exception {
        // Given alice writes an aborted transaction, then a committed one, through the proxy
        Properties props = ScramUsers.client(proxy.bootstrap(), "alice");
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "enc-tx");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("secret.tx", utf8("aborted"))).get();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("secret.tx", utf8("committed"))).get();
            producer.commitTransaction();
        }

        // When alice reads committed records through the proxy
        Properties reader = ScramUsers.client(proxy.bootstrap(), "alice");
        reader.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<byte[], byte[]>> read = read(reader, "secret.tx", 1);

        // Then she gets the committed one only, decrypted, at the offset the broker gave it
        assertEquals("committed", new String(read.get(0).value(), StandardCharsets.UTF_8));
        assertEquals(2, read.get(0).offset(), "after the aborted record and its abort marker");
    }

    @Test
    void aPlaintextRecordWrittenAroundTheProxyIsRefusedOnTheFetchPath() throws Exception {
        // Given a record written straight to the broker into an encrypted topic
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(direct(), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("a.secret.around", utf8("forged"))).get();
        }

        // When alice fetches it through the proxy, then her consumer fails on the partition's error
        Properties props = ScramUsers.client(proxy.bootstrap(), "alice");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("secret.around", 0)));
            consumer.seekToBeginning(consumer.assignment());
            KafkaException refused = assertThrows(KafkaException.class, () -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline) {
                    assertTrue(consumer.poll(Duration.ofMillis(500)).isEmpty(), "a record was delivered");
                }
            });
            assertTrue(refused.getMessage().contains("corrupt"), refused.getMessage());
        }

        // and the counter says why
        assertTrue(proxy.metric("kafscale_proxy_encryption_refused_records_total{reason=\"unencrypted\"") > 0);
    }

    private static Properties direct() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers());
        return props;
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(Properties props, String topic, int count) {
        return RecordRoundTrip.firstRecords(props, topic, count);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
