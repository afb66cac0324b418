package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Brokers whose client listener is TLS, SASL or both, with users and certificates the test makes. */
class KafkaClusterSecurityIT {

    @TempDir
    Path certificates;

    @Test
    void saslSslBrokersServeScramAndPlainUsersAndRefuseAWrongPassword() throws Exception {
        // Given three SASL_SSL brokers with a SCRAM and a PLAIN user
        BrokerSecurity security = BrokerSecurity.saslSsl(TestCertificates.create(certificates))
                .withScramUser("alice", "alice-secret").withPlainUser("bob", "bob-secret");
        try (KafkaCluster cluster = KafkaCluster.start(3, security)) {
            cluster.createTopic("secured", 3);

            // When alice (SCRAM-SHA-512) produces and bob (PLAIN) consumes
            produce(cluster, security.clientProperties("SCRAM-SHA-512", "alice", "alice-secret"), "secured", 30);
            int read = consume(cluster, security.clientProperties("PLAIN", "bob", "bob-secret"), "secured", 30);

            // Then every record arrives, and a wrong password is refused as such
            assertEquals(30, read);
            ExecutionException wrong = assertThrows(ExecutionException.class, () -> produce(cluster,
                    security.clientProperties("SCRAM-SHA-512", "alice", "wrong"), "secured", 1));
            assertInstanceOf(SaslAuthenticationException.class, wrong.getCause());
        }
    }

    @Test
    void mutualTlsBrokersServeAClientWithACertificate() throws Exception {
        // Given brokers that require a client certificate of the test CA
        BrokerSecurity security = BrokerSecurity.ssl(TestCertificates.create(certificates)).requiringClientCertificates();
        try (KafkaCluster cluster = KafkaCluster.start(1, security)) {
            cluster.createTopic("tls", 1);

            // When a client with such a certificate produces and consumes
            produce(cluster, security.clientProperties(null, "carol", null), "tls", 5);

            // Then it reads what it wrote
            assertEquals(5, consume(cluster, security.clientProperties(null, "carol", null), "tls", 5));
        }
    }

    private static void produce(KafkaCluster cluster, Map<String, Object> security, String topic, int count)
            throws Exception {
        Map<String, Object> config = new HashMap<>(security);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(20, TimeUnit.SECONDS);
            }
        }
    }

    private static int consume(KafkaCluster cluster, Map<String, Object> security, String topic, int expected) {
        Map<String, Object> config = new HashMap<>(security);
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "g-" + topic);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        int[] read = {0};
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Eventually.await(Duration.ofSeconds(30), expected + " records from " + topic, () -> {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                read[0] += records.count();
                return read[0] >= expected;
            });
        }
        return read[0];
    }
}
