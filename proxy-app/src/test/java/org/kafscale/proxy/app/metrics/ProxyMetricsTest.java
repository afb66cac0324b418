package org.kafscale.proxy.app.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.discovery.TopologySource;

class ProxyMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProxyMetrics metrics = new ProxyMetrics(registry, new EmptySource(), () -> true);

    @Test
    void madeUpApiKeysAndVersionsShareOneSeriesEach() {
        // Given: a client sending thousands of API keys kafka-clients does not know, and known keys at
        // versions no Kafka has
        for (int key = 2_000; key < 5_000; key++) {
            metrics.requestCompleted((short) key, (short) 0, 1_000, 20, 0, false);
        }
        for (int version = 500; version < 3_000; version++) {
            metrics.requestCompleted(ApiKeys.METADATA.id, (short) version, 1_000, 20, 0, false);
        }
        // When
        metrics.requestCompleted(ApiKeys.METADATA.id, (short) 12, 1_000, 20, 0, false);

        // Then: one series for every unknown key, one for Metadata at any unknown version, one for v12
        assertEquals(3, registry.find("kafscale_proxy_requests").timers().size());
        assertEquals(3_000, count("unknown", "unknown"));
        assertEquals(2_500, count(ApiKeys.METADATA.name, "unknown"));
        assertEquals(1, count(ApiKeys.METADATA.name, "12"));
    }

    private long count(String api, String version) {
        Timer timer = registry.find("kafscale_proxy_requests").tag("api", api).tag("version", version).timer();
        return timer == null ? 0 : timer.count();
    }

    /** A source with nothing in it: the metrics only read it for gauges. */
    private static final class EmptySource implements TopologySource {
        @Override
        public CompletableFuture<TopologySnapshot> start() {
            return CompletableFuture.completedFuture(TopologySnapshot.EMPTY);
        }

        @Override
        public RoutingGate gate() {
            return () -> true;
        }

        @Override
        public long millisSinceGoodRead() {
            return -1;
        }

        @Override
        public void close() {
        }

        @Override
        public TopologySnapshot snapshot() {
            return TopologySnapshot.EMPTY;
        }

        @Override
        public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
            return CompletableFuture.completedFuture(-1);
        }

        @Override
        public void invalidatePartition(String topic, int partition) {
        }

        @Override
        public void invalidateCoordinator(CoordinatorKind kind, String key) {
        }
    }
}
