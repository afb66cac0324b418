package org.kafscale.proxy.core.backend;

import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks each broker the topology lists for its ApiVersions, once, and records the answers so the
 * proxy advertises only versions every broker serves. Brokers that leave are forgotten.
 */
public final class BrokerApiVersionsProbe {
    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerApiVersionsProbe.class);

    private final Topology topology;
    private final KafkaRequestClient client;
    private final BrokerApiVersions versions;

    public BrokerApiVersionsProbe(Topology topology, KafkaRequestClient client, BrokerApiVersions versions) {
        this.topology = topology;
        this.client = client;
        this.versions = versions;
    }

    /** Probes every listed broker not yet probed; call periodically. Never blocks. */
    public void probeNewBrokers() {
        TopologySnapshot snapshot = topology.snapshot();
        versions.retainOnly(snapshot.brokers().keySet());
        for (BrokerEndpoint broker : snapshot.brokers().values()) {
            if (!versions.knows(broker.id())) {
                client.apiVersions(broker).whenComplete((data, error) -> {
                    if (error != null) {
                        LOGGER.debug("ApiVersions probe of {} failed: {}", broker, error.toString());
                    } else {
                        versions.update(broker.id(), data);
                        LOGGER.info("{} supports {} APIs", broker, data.apiKeys().size());
                    }
                });
            }
        }
    }
}
