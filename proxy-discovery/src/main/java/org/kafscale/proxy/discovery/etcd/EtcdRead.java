package org.kafscale.proxy.discovery.etcd;

import java.util.Map;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * What one read of etcd produced, all of it at one etcd revision.
 *
 * @param snapshot brokers, topics and partition owners, as the proxy routes on them
 * @param document the snapshot key as parsed (the last good one when this read's did not parse)
 * @param groupLeases each leased group's broker, only brokers the snapshot lists
 * @param revision the etcd revision the read saw; a watch from {@code revision + 1} misses nothing
 * @param healthy the snapshot parsed and lists a broker: the TTL counts from this read
 */
record EtcdRead(TopologySnapshot snapshot, KafscaleSnapshot document, Map<String, Integer> groupLeases,
                long revision, boolean healthy) {
    /** Before the first read. */
    static final EtcdRead NONE = new EtcdRead(TopologySnapshot.EMPTY, KafscaleSnapshot.NONE, Map.of(), 0, false);
}
