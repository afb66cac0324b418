package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FaultyRelay;
import org.kafscale.proxy.testkit.FaultyRelay.Fault;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;

/**
 * A broker connection that answers a Fetch with garbage, closes in the middle of the answer, or
 * stops answering does not cost the consumer its records: the proxy retries the part on a fresh
 * channel. "0 records and no error" (the field report behind this test) must be impossible.
 *
 * <p>Three brokers each lead one single-replica partition; the proxy reaches the second broker
 * through a {@link FaultyRelay}, as KafScale's etcd snapshot tells it to.
 */
class BrokenBrokerIT {
    private static final String TOPIC = "broken-broker";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 300;
    private static final Duration CONSUME_DEADLINE = Duration.ofSeconds(60);
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    /** Short, so a silent broker is given up on in seconds. */
    private static final String REQUEST_TIMEOUT_MS = "2000";
    /**
     * What the proxy logs when it gives the failed part to a fresh channel: at once ("retrying on a
     * fresh channel"), or, when the client was already answered from the other brokers, with the
     * connection's next Fetch ("the next Fetch goes on a fresh channel").
     */
    private static final String RETRIED = "on a fresh channel";

    private static KafkaCluster cluster;
    private static EtcdProcess etcd;
    private static KafscaleEtcdWriter kafscale;
    private static FaultyRelay relay;
    private static Map<Integer, List<String>> sent;
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @BeforeAll
    static void start() throws Exception {
        cluster = KafkaCluster.start(3);
        etcd = EtcdProcess.startNew();
        kafscale = KafscaleEtcdWriter.connect(etcd.endpoint());
        List<Integer> brokers = cluster.brokerIds();
        cluster.createTopic(TOPIC, Map.of(0, brokers.get(0), 1, brokers.get(1), 2, brokers.get(2)));
        sent = RecordRoundTrip.produce(cluster.bootstrapServers(), TOPIC, PARTITIONS, RECORDS);
        int faultyBroker = brokers.get(1);
        relay = FaultyRelay.start(cluster.brokerAddress(faultyBroker));
        kafscale.publishSnapshot(cluster, List.of(TOPIC), Map.of(faultyBroker, "127.0.0.1:" + relay.port()));
        kafscale.publishPartitionLeases(cluster, List.of(TOPIC));
    }

    @AfterAll
    static void stop() {
        if (relay != null) {
            relay.close();
        }
        if (kafscale != null) {
            kafscale.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Stream<Arguments> faultsAndModes() {
        return Stream.of(Fault.values())
                .flatMap(fault -> Stream.of("brokers", "single").map(mode -> Arguments.of(fault, mode)));
    }

    @ParameterizedTest(name = "{0}, advertise mode {1}")
    @MethodSource("faultsAndModes")
    void consumerReceivesEveryRecordWhenTheBrokerConnectionBreaksDuringAFetch(Fault fault, String mode) {
        // Given: a proxy routing from etcd, the second broker's next Fetch answer due to break
        try (RunningProxy proxy = proxyOnEtcd(mode)) {
            Eventually.await(DEADLINE, "/readyz turns 200", () -> proxy.healthStatus("/readyz") == 200);
            relay.arm(fault);
            // When
            Map<Integer, List<String>> received = consumeFromStart(proxy);
            // Then: every record once, in order, although the fault really hit the read path
            int total = received.values().stream().mapToInt(List::size).sum();
            assertEquals(RECORDS, total, "records received per partition " + counts(received)
                    + "; fault applied: " + relay.faultApplied() + "; proxy warnings:\n" + logs.warnings());
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
            assertTrue(relay.faultApplied(), "the relay broke a Fetch answer of the second broker");
            Eventually.await(DEADLINE, "a log line saying the proxy retried (" + RETRIED + ")",
                    () -> assertTrue(logs.events().stream().anyMatch(e -> e.getFormattedMessage().contains(RETRIED)),
                            () -> "no line contains '" + RETRIED + "'; proxy warnings:\n" + logs.warnings()));
        }
    }

    private static RunningProxy proxyOnEtcd(String mode) {
        return RunningProxy.start(cluster, mode, Map.of(
                ProxyConfig.BACKENDS, "",
                ProxyConfig.ETCD_ENDPOINTS, etcd.endpoint(),
                ProxyConfig.ETCD_RESYNC_MS, "500",
                ProxyConfig.REQUEST_TIMEOUT_MS, REQUEST_TIMEOUT_MS));
    }

    /** A fresh group-less consumer reads all partitions from the start until it has every record or the deadline passes. */
    private static Map<Integer, List<String>> consumeFromStart(RunningProxy proxy) {
        Properties props = RecordRoundTrip.consumerProperties(proxy.bootstrap());
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        Map<Integer, List<String>> received = new TreeMap<>();
        int total = 0;
        long deadline = System.nanoTime() + CONSUME_DEADLINE.toNanos();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = RecordRoundTrip.partitionsOf(TOPIC, PARTITIONS);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (total < RECORDS && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    received.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
                    total++;
                }
            }
        }
        return received;
    }

    private static Map<Integer, Integer> counts(Map<Integer, List<String>> received) {
        Map<Integer, Integer> counts = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            counts.put(p, received.getOrDefault(p, List.of()).size());
        }
        return counts;
    }

}
