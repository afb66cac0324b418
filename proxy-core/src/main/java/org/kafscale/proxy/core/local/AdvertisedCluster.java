package org.kafscale.proxy.core.local;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * The cluster as a client may see it, for every answer the proxy builds from the topology
 * (Metadata, DescribeCluster, DescribeTopicPartitions): the same node ids, addresses, controller
 * and partition leaders in each, so no answer shows what another hides.
 *
 * <p>{@code single} mode: one node 0 at the proxy's address, leader, sole replica and sole ISR of
 * every partition that has an owner (the price of one address: a topic's replication factor shows
 * as 1). {@code brokers} mode: every real broker id at the proxy's address, real leaders,
 * replicas and ISR. {@code ports} mode: as brokers mode, each id at its own port
 * ({@link AdvertisedListener#portOf}); an id outside the port range is listed at the bootstrap
 * port, which serves its partitions by splitting.
 */
public final class AdvertisedCluster {

    /** One node as advertised. */
    public record Node(int id, String host, int port, String rack) {
    }

    /**
     * One partition as advertised.
     *
     * @param error NONE, or LEADER_NOT_AVAILABLE when no live broker owns it (clients retry)
     * @param leaderId the advertised leader, -1 without one
     */
    public record Partition(Errors error, int leaderId, List<Integer> replicas, List<Integer> isr,
                            List<Integer> offlineReplicas) {
    }

    private final AdvertisedListener advertised;
    private final TopologySnapshot snapshot;

    public AdvertisedCluster(AdvertisedListener advertised, TopologySnapshot snapshot) {
        this.advertised = advertised;
        this.snapshot = snapshot;
    }

    public TopologySnapshot snapshot() {
        return snapshot;
    }

    /** The nodes clients are told of, in id order; none when the topology lists no broker. */
    public List<Node> nodes() {
        List<Node> nodes = new ArrayList<>();
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            if (snapshot.hasBrokers()) {
                nodes.add(new Node(AdvertisedListener.SINGLE_NODE_ID, advertised.host(), advertised.port(), null));
            }
            return nodes;
        }
        for (BrokerEndpoint broker : snapshot.brokers().values()) {
            nodes.add(new Node(broker.id(), advertised.hostOf(broker.id()), advertised.portOf(broker.id()),
                    broker.rack()));
        }
        return nodes;
    }

    /**
     * The controller id a client may see: an advertised node (KRaft brokers name a live broker
     * too, since clients cannot reach the controllers), -1 without brokers.
     */
    public int controllerId() {
        if (!snapshot.hasBrokers()) {
            return -1;
        }
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            return AdvertisedListener.SINGLE_NODE_ID;
        }
        return snapshot.brokers().containsKey(snapshot.controllerId())
                ? snapshot.controllerId() : snapshot.brokerIds().get(0);
    }

    /** One partition of {@code topic} as advertised. */
    public Partition partition(String topic, PartitionLayout p) {
        boolean owned = snapshot.owner(topic, p.partition()).isPresent();
        Errors error = owned ? Errors.NONE : Errors.LEADER_NOT_AVAILABLE;
        if (advertised.mode() == AdvertiseMode.SINGLE) {
            List<Integer> single = List.of(AdvertisedListener.SINGLE_NODE_ID);
            return new Partition(error, owned ? AdvertisedListener.SINGLE_NODE_ID : -1, single,
                    owned ? single : List.of(), List.of());
        }
        List<Integer> replicas = p.replicas().isEmpty() && owned ? List.of(p.owner()) : p.replicas();
        List<Integer> isr = p.isr().isEmpty() && owned ? List.of(p.owner()) : p.isr();
        return new Partition(error, owned ? p.owner() : -1, replicas, isr, p.offlineReplicas());
    }
}
