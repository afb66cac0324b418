package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.SoftHsmToken;

/**
 * Record encryption whose KEK is an AES key on a PKCS#11 token: a real SoftHSM2 token, made fresh
 * for the class, its key made on the token and never extractable. The proxies run as processes of
 * their own, each given the token's {@code SOFTHSM2_CONF} (SoftHSM2 reads it once per process).
 */
class EncryptionPkcs11IT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);
    private static final String TOPIC = "hsm.orders";

    @TempDir
    static Path dir;
    private static SoftHsmToken token;

    @BeforeAll
    static void makeToken() throws Exception {
        token = SoftHsmToken.create(dir.resolve("hsm"), "kafscale", "4321", "kek-1");
        KAFKA.cluster().createTopic(TOPIC, 1);
    }

    @Test
    void aRecordEncryptedWithTheTokensKeyIsCiphertextAtTheBrokerAndPlaintextThroughAnotherProxy() throws Exception {
        Map<String, String> settings = settings("${env:HSM_PIN}", Map.of("HSM_PIN", token.pin()));
        int writerPort = FreePorts.next();
        int readerPort = FreePorts.next();

        // Given alice produces through one proxy
        try (ProxyProcess writer = ProxyProcess.start(withPort(settings, writerPort))) {
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                    ScramUsers.client("127.0.0.1:" + writerPort, "alice"), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, utf8("k" + i), utf8("iban-" + i))).get();
                }
            }
        }

        // Then the broker holds ciphertext with the envelope
        List<ConsumerRecord<byte[], byte[]>> stored = read(direct(), 3);
        for (ConsumerRecord<byte[], byte[]> record : stored) {
            assertFalse(new String(record.value(), StandardCharsets.UTF_8).contains("iban-"));
            assertNotNull(record.headers().lastHeader("kafscale.enc"));
        }

        // and a second proxy on the same token, which made none of the data keys, gives alice the plaintext
        try (ProxyProcess reader = ProxyProcess.start(withPort(settings, readerPort))) {
            List<ConsumerRecord<byte[], byte[]>> alice = read(ScramUsers.client("127.0.0.1:" + readerPort, "alice"), 3);
            for (int i = 0; i < 3; i++) {
                assertEquals("iban-" + i, new String(alice.get(i).value(), StandardCharsets.UTF_8));
                assertNull(alice.get(i).headers().lastHeader("kafscale.enc"));
            }
        }
    }

    @Test
    void aWrongPinStopsStartUpNamingItsPath() throws Exception {
        String output = ProxyProcess.startRefused(withPort(settings("0000", Map.of()), FreePorts.next()));

        assertTrue(output.contains("is invalid at encryption[0].kek.pkcs11.pin: "), output);
        assertTrue(output.contains("CKR_PIN_INCORRECT"), output);
    }

    /** A proxy's environment: alice and bob by SCRAM, {@value #TOPIC} encrypted with the token's key, {@code pin} as written in the file. */
    private static Map<String, String> settings(String pin, Map<String, String> extra) throws Exception {
        Path proxyDir = dir.resolve(pin.startsWith("$") ? "right-pin" : "wrong-pin");
        java.nio.file.Files.createDirectories(proxyDir);
        Map<String, String> env = new HashMap<>(ScramUsers.gatewaySettings(proxyDir, "SCRAM-SHA-512",
                List.of("alice", "bob"), """
                encryption:
                  - topics: "hsm\\\\..*"
                    kek:
                      pkcs11: {library: "%s", slot: %d, pin: "%s", label: %s}
                    allow: ["User:alice"]
                """.formatted(token.library(), token.slot(), pin, token.keyLabel())));
        env.putAll(token.environment());
        env.putAll(extra);
        env.put(ProxyConfig.ADVERTISED_HOST, "127.0.0.1");
        env.put(ProxyConfig.ADVERTISE_MODE, "single");
        env.put(ProxyConfig.BACKENDS, KAFKA.cluster().bootstrapServers());
        return env;
    }

    private static Map<String, String> withPort(Map<String, String> settings, int port) {
        Map<String, String> env = new HashMap<>(settings);
        env.put(ProxyConfig.ADDR, "127.0.0.1:" + port);
        env.put(ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + FreePorts.next());
        return env;
    }

    private static Properties direct() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers());
        return props;
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(Properties props, int count) {
        return RecordRoundTrip.firstRecords(props, TOPIC, count);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
