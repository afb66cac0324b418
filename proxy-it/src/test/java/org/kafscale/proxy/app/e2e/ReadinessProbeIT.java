package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * {@code /readyz} proves the read path: it is 200 only after a real Fetch through the proxy's own
 * listener returned records, says so when no partition has data to prove anything with, and stays
 * 503 while the broker holding the probe partition is down.
 */
class ReadinessProbeIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String PROBE_INTERVAL_MS = "300";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(2);

    @Test
    void anEmptyProbeTopicIsReportedAsUnprovenUntilItHoldsARecord() throws Exception {
        // Given
        KAFKA.cluster().createTopic("probe-empty", 1);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single",
                Map.of(ProxyConfig.READY_PROBE_TOPIC, "probe-empty"))) {
            // Then: ready on metadata and a round trip, but not claiming a proof
            Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
            String unproven = proxy.healthBody("/readyz");
            assertTrue(unproven.contains("read path unproven") && unproven.contains("no partition has data"), unproven);
            // When
            produce(proxy, "probe-empty", 0, "first");
            // Then: the next probe fetches the record through the proxy
            Eventually.await(DEADLINE, "the probe to fetch the record",
                    () -> proxy.healthBody("/readyz").contains("read path proven: fetched 1 records from probe-empty-0"));
        }
    }

    @Test
    void withoutAProbeTopicAnyPartitionWithDataIsProof() throws Exception {
        // Given
        KAFKA.cluster().createTopic("probe-any", 3);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single")) {
            // When
            produce(proxy, "probe-any", 2, "some data");
            // Then
            Eventually.await(DEADLINE, "a proof from some partition with data",
                    () -> proxy.healthBody("/readyz").startsWith("ready\nread path proven: fetched "));
            assertEquals(1.0, proxy.metric("kafscale_proxy_ready "));
        }
    }

    @Test
    void readyzStaysNotReadyWhileTheProbePartitionsOnlyBrokerIsDown() throws Exception {
        // Given: the probe partition lives on one broker only, and has data
        int owner = KAFKA.cluster().brokerIds().get(1);
        KAFKA.cluster().createTopic("probe-owned", Map.of(0, owner));
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single", Map.of(
                ProxyConfig.READY_PROBE_TOPIC, "probe-owned", ProxyConfig.READY_PROBE_PARTITION, "0",
                ProxyConfig.READY_PROBE_INTERVAL_MS, PROBE_INTERVAL_MS, ProxyConfig.REQUEST_TIMEOUT_MS, "2000"))) {
            produce(proxy, "probe-owned", 0, "proof");
            Eventually.await(DEADLINE, "/readyz proven", () -> proxy.healthBody("/readyz").contains("read path proven"));
            // When
            KAFKA.cluster().stopBroker(owner);
            try {
                // Then: not ready, and it stays so over many probes while the broker is away
                Eventually.await(DEADLINE, "/readyz 503", () -> proxy.healthStatus("/readyz") == 503);
                assertTrue(proxy.healthBody("/readyz").contains("read path failed"), proxy.healthBody("/readyz"));
                long until = System.nanoTime() + Duration.ofMillis(10 * Long.parseLong(PROBE_INTERVAL_MS)).toNanos();
                while (System.nanoTime() < until) {
                    assertEquals(503, proxy.healthStatus("/readyz"), "ready again while the broker is down");
                }
            } finally {
                KAFKA.cluster().restartBroker(owner);
            }
            // Then: ready again once the broker serves the partition
            Eventually.await(DEADLINE, "/readyz proven again", () -> proxy.healthStatus("/readyz") == 200
                    && proxy.healthBody("/readyz").contains("read path proven: fetched 1 records from probe-owned-0"));
        }
    }

    private static void produce(RunningProxy proxy, String topic, int partition, String value) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                RecordRoundTrip.idempotentProducerProperties(proxy.bootstrap()))) {
            producer.send(new ProducerRecord<>(topic, partition, null, value)).get();
        }
    }

}
