package org.kafscale.proxy.core.tenant;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The virtual clusters of one proxy, and which one a connection is in: the one naming the
 * principal it authenticated as. Checked whole when made: no two share a name, a principal or a
 * cluster id, and no prefix of one is a prefix of another's (else one tenant's {@code a.} would
 * see the other's {@code a.b.} topics).
 */
public final class VirtualClusters {
    public static final VirtualClusters NONE = new VirtualClusters(List.of());

    private final List<VirtualCluster> clusters;
    private final Map<KafkaPrincipal, VirtualCluster> byPrincipal = new HashMap<>();
    /** By name: every request of a placed connection looks its virtual cluster up here. */
    private final Map<String, VirtualCluster> byName = new HashMap<>();

    /** @throws IllegalArgumentException naming the clusters that collide, and on what */
    public VirtualClusters(List<VirtualCluster> clusters) {
        this.clusters = List.copyOf(clusters);
        Set<String> names = new HashSet<>();
        Map<String, String> clusterIds = new HashMap<>();
        for (VirtualCluster cluster : this.clusters) {
            byName.put(cluster.name(), cluster);
            if (!names.add(cluster.name())) {
                throw new IllegalArgumentException("two virtual clusters are named '" + cluster.name() + "'");
            }
            String sameId = clusterIds.putIfAbsent(cluster.clusterId(), cluster.name());
            if (sameId != null) {
                throw new IllegalArgumentException("virtual clusters '" + sameId + "' and '" + cluster.name()
                        + "' have the same clusterId " + cluster.clusterId());
            }
            for (KafkaPrincipal principal : cluster.principals()) {
                VirtualCluster other = byPrincipal.putIfAbsent(principal, cluster);
                if (other != null) {
                    throw new IllegalArgumentException(principal + " is in two virtual clusters, '" + other.name()
                            + "' and '" + cluster.name() + "'");
                }
            }
        }
        for (VirtualCluster a : this.clusters) {
            for (VirtualCluster b : this.clusters) {
                if (a != b) {
                    overlap("topicPrefix", a, a.names().topicPrefix(), b, b.names().topicPrefix());
                    overlap("groupPrefix", a, a.names().groupPrefix(), b, b.names().groupPrefix());
                    overlap("transactionalIdPrefix", a, a.names().transactionalIdPrefix(), b,
                            b.names().transactionalIdPrefix());
                }
            }
        }
    }

    /** The virtual cluster {@code principal} is in, if any. */
    public Optional<VirtualCluster> of(KafkaPrincipal principal) {
        return Optional.ofNullable(byPrincipal.get(principal));
    }

    /** The virtual cluster named {@code name}, if any. */
    public Optional<VirtualCluster> named(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public List<VirtualCluster> all() {
        return clusters;
    }

    public boolean isEmpty() {
        return clusters.isEmpty();
    }

    private static void overlap(String setting, VirtualCluster a, String prefixA, VirtualCluster b, String prefixB) {
        if (prefixB.startsWith(prefixA)) {
            throw new IllegalArgumentException("the " + setting + " '" + prefixA + "' of virtual cluster '" + a.name()
                    + "' is the start of '" + prefixB + "' of '" + b.name() + "': the first would see the second's names");
        }
    }
}
