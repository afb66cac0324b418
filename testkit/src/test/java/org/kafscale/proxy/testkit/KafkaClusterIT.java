package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KafkaClusterIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void partitionsAreLedByTheChosenBrokersAndServeProduceAndGroupConsume() throws Exception {
        // Given
        List<Integer> ids = cluster.brokerIds();
        assertEquals(3, ids.size());
        Map<Integer, Integer> wanted = Map.of(0, ids.get(2), 1, ids.get(0), 2, ids.get(1));
        cluster.createTopic("placed", wanted);

        // When
        try (KafkaProducer<String, String> producer = producer()) {
            for (int partition = 0; partition < 3; partition++) {
                producer.send(new ProducerRecord<>("placed", partition, "k" + partition, "v" + partition)).get(30, TimeUnit.SECONDS);
            }
        }

        // Then
        assertEquals(wanted, cluster.leaders("placed"));
        assertNotNull(cluster.topicId("placed"));
        assertEquals(List.of("v0", "v1", "v2"), consumeAsGroup("placed", 3));
    }

    @Test
    void restartedBrokerKeepsItsAddressAndLeadsItsPartitionAgain() throws Exception {
        // Given a partition led by one broker, and a producer that knows that broker's address
        int victim = cluster.brokerIds().get(1);
        String addressBefore = cluster.brokerAddress(victim);
        cluster.createTopic("restarts", Map.of(0, cluster.brokerIds().get(0), 1, victim));
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>("restarts", 1, "k", "before")).get(30, TimeUnit.SECONDS);

            // When the broker is stopped, its partition loses its leader
            cluster.stopBroker(victim);
            assertEquals(KafkaCluster.NO_LEADER, cluster.leaders("restarts").get(1));

            // ...and when it comes back
            cluster.restartBroker(victim);

            // Then it is at the same address, leads again, and the same producer reaches it
            assertEquals(addressBefore, cluster.brokerAddress(victim));
            assertEquals(victim, cluster.leaders("restarts").get(1));
            RecordMetadata after = producer.send(new ProducerRecord<>("restarts", 1, "k", "after")).get(30, TimeUnit.SECONDS);
            assertEquals(1, after.offset());
        }
    }

    private static KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static List<String> consumeAsGroup(String topic, int count) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "group-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Eventually.await(DEADLINE, count + " records from " + topic, () -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(record.value());
                }
                return values.size() >= count;
            });
        }
        return values.stream().sorted().toList();
    }
}
