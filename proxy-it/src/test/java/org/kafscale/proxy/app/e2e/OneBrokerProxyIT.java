package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Clients that only know the proxy's address use a one-broker cluster through it. */
class OneBrokerProxyIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"brokers", "single"})
    void javaProducerAndConsumerGroupMoveTenThousandRecordsExactlyOnceInOrder(String mode) throws Exception {
        // Given
        String topic = "round-trip-" + mode;
        KAFKA.cluster().createTopic(topic, 4);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), mode)) {
            // When
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), topic, 4, 10_000);
            Map<Integer, List<String>> received =
                    RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), topic, "group-" + mode, 10_000);
            // Then
            RecordRoundTrip.assertExactlyOnceInOrder(sent, received);
        }
    }

    @Test
    void kcatListsMetadataProducesAndConsumesThroughTheProxy() {
        // Given
        String topic = "kcat-topic";
        KAFKA.cluster().createTopic(topic, 1);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
            // When
            Kcat.Result metadata = Kcat.metadata(proxy.bootstrap());
            Kcat.Result produced = Kcat.produce(proxy.bootstrap(), topic, List.of("alpha", "beta", "gamma"));
            Kcat.Result consumed = Kcat.consume(proxy.bootstrap(), topic, 3);
            // Then
            assertTrue(metadata.succeeded(), metadata.stderr());
            assertTrue(metadata.stdout().contains("at 127.0.0.1:" + proxy.port()),
                    "brokers are advertised at the proxy's address:\n" + metadata.stdout());
            assertTrue(metadata.stdout().contains("topic \"" + topic + "\""), metadata.stdout());
            assertTrue(produced.succeeded(), produced.stderr());
            assertTrue(consumed.succeeded(), consumed.stderr());
            assertEquals(List.of("alpha", "beta", "gamma"), consumed.lines());
        }
    }

    @Test
    void metricsCountRequestsBytesAndConnectionsAfterTraffic() throws Exception {
        // Given
        KAFKA.cluster().createTopic("metered", 1);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
            // When: real traffic through the proxy
            RecordRoundTrip.produce(proxy.bootstrap(), "metered", 1, 100);
            String metrics = proxy.healthBody("/metrics");
            // Then: the series a user would chart, with values that reflect the traffic
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_requests_seconds_count{api=\"Produce\"") >= 1, metrics);
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_requests_seconds_count{api=\"Metadata\"") >= 1, metrics);
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_client_bytes_in_bytes_total") > 100, metrics);
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_client_bytes_out_bytes_total") > 0, metrics);
            assertEquals(1.0, RunningProxy.metricValue(metrics, "kafscale_proxy_routable"));
            assertEquals(1.0, RunningProxy.metricValue(metrics, "kafscale_proxy_brokers_known"));
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_fan_out_width_count{api=\"Produce\"") >= 1, metrics);
            assertEquals(1.0, RunningProxy.metricValue(metrics, "kafscale_proxy_fan_out_width_max{api=\"Produce\""), "one broker, no split");
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_backend_channels{broker=") >= 0, metrics);
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_topology_age_seconds") >= 0, metrics);
            assertTrue(metrics.contains("jvm_memory_used_bytes"), "JVM memory");
            assertTrue(metrics.contains("kafscale_proxy_netty_direct_memory_bytes"), "Netty memory");
        }
    }


    @Test
    void healthEndpointsReportLiveAndReadyWhileBrokersAreKnown() {
        // Given
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers")) {
            // When: the first read-path probe has run
            Eventually.await(Duration.ofSeconds(10), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
            // Then
            assertEquals(200, proxy.healthStatus("/livez"));
            assertTrue(proxy.healthBody("/readyz").startsWith("ready\nread path "), "the body says what was proven");
            assertEquals(404, proxy.healthStatus("/nope"));
        }
    }
}
