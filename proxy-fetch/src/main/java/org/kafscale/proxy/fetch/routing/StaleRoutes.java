package org.kafscale.proxy.fetch.routing;

import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker answered a partition with a leader-class error: the broker is authoritative, so the
 * route is dropped and the next request (or retry) uses the source's next word on the owner.
 */
public final class StaleRoutes {
    private static final Logger LOGGER = LoggerFactory.getLogger(StaleRoutes.class);

    private StaleRoutes() {
    }

    public static void drop(Topology topology, BrokerEndpoint broker, PartitionRef ref, short errorCode) {
        if (ref.routingName() == null) {
            return;
        }
        LOGGER.info("{} does not lead {}-{} ({}); dropping the route", broker, ref.routingName(), ref.partition(),
                org.apache.kafka.common.protocol.Errors.forCode(errorCode).name());
        topology.invalidatePartition(ref.routingName(), ref.partition());
    }
}
