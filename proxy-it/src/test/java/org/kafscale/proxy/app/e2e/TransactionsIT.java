package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.testkit.KafkaAndEtcdExtension;

/**
 * Transactions and unleased groups through the proxy on three brokers, with both topologies and
 * both advertise modes. Each transactional id and group has its coordinator where Kafka put it,
 * which the proxy must find (etcd holds no lease for any of them): several transactional
 * producers initialize, commit and abort; Admin.fenceProducers fences one; a group commits and
 * fetches its offsets.
 */
class TransactionsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int PARTITIONS = 3;
    private static final int PRODUCERS = 4;
    private static final int RECORDS = 30;

    @RegisterExtension
    static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(3);

    @ParameterizedTest(name = "{0} topology, advertise mode {1}")
    @CsvSource({"kafka,single", "kafka,brokers", "kafka,ports", "etcd,single", "etcd,brokers"})
    void transactionalProducersCommitAndAbortAndReadCommittedSeesOnlyTheCommitted(String source, String mode)
            throws Exception {
        // Given: three partitions, one led by each broker, and four transactional ids
        String topic = "txns-" + source + "-" + mode;
        try (RunningProxy proxy = proxyWithTopic(source, mode, topic)) {
            // When: each producer initializes, commits one transaction and aborts the next
            Map<Integer, List<String>> committed = new HashMap<>();
            for (int i = 0; i < PRODUCERS; i++) {
                try (KafkaProducer<String, String> producer =
                             TransactionalRecords.producer(proxy.bootstrap(), topic + "-producer-" + i)) {
                    producer.initTransactions();
                    producer.beginTransaction();
                    TransactionalRecords.sendAll(producer, topic, PARTITIONS, "committed-" + i + "-", RECORDS)
                            .forEach((p, values) -> committed.computeIfAbsent(p, x -> new ArrayList<>()).addAll(values));
                    producer.commitTransaction();
                    producer.beginTransaction();
                    TransactionalRecords.sendAll(producer, topic, PARTITIONS, "aborted-" + i + "-", RECORDS);
                    producer.abortTransaction();
                }
            }
            // Then: a read_committed consumer through the proxy reads exactly the committed records, in order
            TransactionalRecords.awaitMarkers(BACKENDS.cluster(), topic, PARTITIONS);
            RecordRoundTrip.assertExactlyOnceInOrder(committed, TransactionalRecords.readToEnd(BACKENDS.cluster(),
                    proxy.bootstrap(), topic, PARTITIONS, IsolationLevel.READ_COMMITTED));
        }
    }

    @ParameterizedTest(name = "{0} topology, advertise mode {1}")
    @CsvSource({"kafka,single", "kafka,brokers", "etcd,single", "etcd,brokers"})
    void fenceProducersCompletesAndTheFencedProducerFails(String source, String mode) throws Exception {
        // Given: a producer with a transaction open
        String topic = "fenced-" + source + "-" + mode;
        String transactionalId = topic + "-producer";
        try (RunningProxy proxy = proxyWithTopic(source, mode, topic);
             KafkaProducer<String, String> producer = TransactionalRecords.producer(proxy.bootstrap(), transactionalId);
             Admin admin = admin(proxy)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, "k", "fenced")).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

            // When: an admin through the proxy fences its transactional id
            admin.fenceProducers(List.of(transactionalId)).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

            // Then: the fenced producer cannot commit, and read_committed never sees its record
            KafkaException failure = assertThrows(KafkaException.class, producer::commitTransaction);
            assertTrue(causedByFencing(failure), "fenced, not another failure: " + failure);
            TransactionalRecords.awaitMarkers(BACKENDS.cluster(), topic, PARTITIONS);
            Map<Integer, List<String>> read = TransactionalRecords.readToEnd(BACKENDS.cluster(), proxy.bootstrap(), topic,
                    PARTITIONS, IsolationLevel.READ_COMMITTED);
            assertEquals(Map.of(), read, "records of the fenced transaction");
        }
    }

    @ParameterizedTest(name = "{0} topology, advertise mode {1}")
    @CsvSource({"kafka,single", "kafka,brokers", "etcd,single", "etcd,brokers"})
    void aGroupWithoutALeaseCommitsAndFetchesItsOffsets(String source, String mode) throws Exception {
        // Given: several groups, none with a lease, each with its coordinator where Kafka put it
        String topic = "unleased-" + source + "-" + mode;
        try (RunningProxy proxy = proxyWithTopic(source, mode, topic)) {
            for (int g = 0; g < 3; g++) {
                String group = topic + "-group-" + g;
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (TopicPartition tp : RecordRoundTrip.partitionsOf(topic, PARTITIONS)) {
                    offsets.put(tp, new OffsetAndMetadata(10L * (g + 1) + tp.partition()));
                }
                // When: a consumer through the proxy commits offsets and reads them back
                Properties props = RecordRoundTrip.consumerProperties(proxy.bootstrap());
                props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
                Map<TopicPartition, OffsetAndMetadata> fetched;
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                    consumer.commitSync(offsets, DEADLINE);
                    fetched = consumer.committed(offsets.keySet(), DEADLINE);
                }
                // Then: the proxy returns them, and they are the group's offsets in Kafka
                assertEquals(offsets, fetched, group + " through the proxy");
                assertEquals(offsets, BACKENDS.cluster().admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(DEADLINE.toSeconds(), TimeUnit.SECONDS), group + " in Kafka");
            }
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers"})
    void aGroupLeaseNamingTheWrongBrokerIsSetAsideWhenThatBrokerRefuses(String mode) throws Exception {
        // Given: etcd leases a group to a broker that is not its coordinator
        String topic = "wrong-lease-" + mode;
        String group = topic + "-group";
        int coordinator = BACKENDS.cluster().groupCoordinator(group);
        int wrong = BACKENDS.cluster().brokerIds().stream().filter(id -> id != coordinator).findFirst().orElseThrow();
        try (RunningProxy proxy = proxyWithTopic("etcd", mode, topic)) {
            BACKENDS.kafscale().putGroupLease(group, wrong);
            Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(42));
            Properties props = RecordRoundTrip.consumerProperties(proxy.bootstrap());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            // When: a consumer through the proxy commits and fetches offsets
            Map<TopicPartition, OffsetAndMetadata> fetched;
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.commitSync(offsets, DEADLINE);
                fetched = consumer.committed(offsets.keySet(), DEADLINE);
            }
            // Then: the refusal sent them to the real coordinator
            assertEquals(offsets, fetched);
            assertEquals(offsets, BACKENDS.cluster().admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        }
    }

    /**
     * A proxy on {@code source} ("kafka": the cluster's own Metadata; "etcd": KafScale's snapshot
     * and partition leases for {@code topic}, no group lease) with {@code topic} created.
     */
    private static RunningProxy proxyWithTopic(String source, String mode, String topic) {
        BACKENDS.cluster().createTopic(topic, RecordRoundTrip.leadersRoundRobin(BACKENDS.cluster().brokerIds(), PARTITIONS));
        if (source.equals("kafka")) {
            return RunningProxy.start(BACKENDS.cluster(), mode);
        }
        BACKENDS.kafscale().deleteAll();
        BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), List.of(topic));
        BACKENDS.kafscale().publishPartitionLeases(BACKENDS.cluster(), List.of(topic));
        return RunningProxy.startOnEtcd(BACKENDS.cluster(), mode, BACKENDS.etcd().endpoint());
    }

    private static Admin admin(RunningProxy proxy) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis()));
    }

    /** The producer was fenced: ProducerFencedException, or InvalidProducerEpochException under transaction version 2. */
    private static boolean causedByFencing(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
                return true;
            }
        }
        return false;
    }
}
