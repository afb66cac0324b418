package org.kafscale.proxy.app;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.discovery.etcd.EtcdTopology;
import org.kafscale.proxy.discovery.kafka.KafkaClusterTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where the proxy learns brokers, partitions and coordinators, and its first read of them. */
final class TopologyAssembly {
    private static final Logger LOGGER = LoggerFactory.getLogger(TopologyAssembly.class);
    private static final Duration FIRST_READ_WAIT = Duration.ofSeconds(10);
    private static final Duration ETCD_READ_TIMEOUT = Duration.ofSeconds(5);

    private TopologyAssembly() {
    }

    /**
     * KafScale's etcd when it is configured (KAFSCALE_PROXY_BACKENDS then only overrides the broker
     * list), otherwise the plain Kafka cluster that KAFSCALE_PROXY_BACKENDS names.
     */
    static TopologySource source(ProxyConfig config, KafkaRequestClient kafkaClient,
                                                 MeterRegistry metrics) {
        List<BrokerEndpoint> backends = config.backends().stream()
                .map(a -> new BrokerEndpoint(-1, a.host(), a.port(), null)).toList();
        if (config.etcd().isPresent()) {
            LOGGER.info("Topology from etcd {} (cache TTL {} s)", config.etcd().get().endpoints(),
                    config.backendCacheTtl().toSeconds());
            return new EtcdTopology(config.etcd().get().connect(), kafkaClient, backends, config.backendCacheTtl(),
                    config.etcdResync(), ETCD_READ_TIMEOUT, metrics);
        }
        LOGGER.info("Topology from the Kafka cluster at {}", config.backends());
        return new KafkaClusterTopology(backends, kafkaClient, config.metadataRefresh(), metrics);
    }

    /** Waits a bounded time for the first read so the listener starts with routes; serves not-ready otherwise. */
    static void awaitFirstRead(TopologySource topology) {
        try {
            topology.start().get(FIRST_READ_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOGGER.warn("First read of the Kafka cluster did not succeed ({}); serving not-ready until it does",
                    e.toString());
        }
    }
}
