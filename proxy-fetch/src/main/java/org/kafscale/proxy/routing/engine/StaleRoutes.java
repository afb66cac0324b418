package org.kafscale.proxy.routing.engine;

import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.Topology;
import org.slf4j.LoggerFactory;

/**
 * A broker answered a partition with a leader-class error: the broker is authoritative, so the
 * route is dropped and the next request (or retry) uses the source's next word on the owner.
 * During a failover every connection hits this for every moved partition, so the line is
 * rate-limited (per proxy).
 */
public final class StaleRoutes {
    private final RateLimitedLog dropped = RateLimitedLog.every10Seconds(LoggerFactory.getLogger(StaleRoutes.class));
    private final Topology topology;

    public StaleRoutes(Topology topology) {
        this.topology = topology;
    }

    /** @param connection the fields of the client connection whose request's part the broker refused */
    public void drop(LogFields connection, BrokerEndpoint broker, PartitionRef ref, short errorCode) {
        if (ref.routingName() == null) {
            return;
        }
        dropped.info(connection, "{} does not lead {}-{} ({}); dropping the route", broker, ref.routingName(),
                ref.partition(), Errors.forCode(errorCode).name());
        topology.invalidatePartition(ref.routingName(), ref.partition());
    }
}
