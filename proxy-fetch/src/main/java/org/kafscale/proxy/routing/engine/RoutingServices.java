package org.kafscale.proxy.routing.engine;

import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.backend.BackendForwarder;

/**
 * What every route shares, across connections: where partitions and coordinators are, how a frame
 * reaches a broker, who hears about fan-outs and retries, and how leader hints look to clients.
 *
 * @param partFailures the line for a part of a request that failed at its broker: one per interval
 *                     per proxy, however many connections see the same broken broker
 * @param staleRoutes where a broker's word that it does not lead a partition goes
 */
public record RoutingServices(Topology topology, BackendForwarder forwarder, RoutingObserver observer,
                              LeaderHints hints, RateLimitedLog partFailures, StaleRoutes staleRoutes) {
}
