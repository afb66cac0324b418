package org.kafscale.proxy.core.tenant;

import java.util.Optional;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Which virtual cluster a connection is in, decided once, at its first request after ApiVersions
 * (after SASL, so the principal is known).
 *
 * <p>On the proxy's shared listener, a connection is in the virtual cluster that names its
 * principal. On a virtual cluster's own listener ({@code listener} in the gateway file), every
 * connection is in that virtual cluster, anonymous ones too, unless it names principals: then
 * only they are served there. A principal another virtual cluster names is never served on this
 * one's listener, so a client cannot reach another tenant's data by picking a port.
 *
 * <p>A virtual cluster reached by its own TLS server names (advertise mode sni, its
 * {@code sniHostSuffix}) is placed the same way as one with a listener of its own: the name
 * stands for the port ({@link #byServerName}).
 */
public final class TenantPlacement {
    private final VirtualClusters clusters;
    private final Optional<VirtualCluster> listenerCluster;
    /** How a client reaches {@link #listenerCluster}, as a refusal says it. */
    private final String entrance;

    /**
     * @param listenerCluster the virtual cluster whose own listener this is; empty on the shared one
     */
    public TenantPlacement(VirtualClusters clusters, Optional<VirtualCluster> listenerCluster) {
        this(clusters, listenerCluster, "whose listener it connected to");
    }

    private TenantPlacement(VirtualClusters clusters, Optional<VirtualCluster> listenerCluster, String entrance) {
        this.clusters = clusters;
        this.listenerCluster = listenerCluster;
        this.entrance = entrance;
    }

    /** The placement of connections that asked for {@code cluster}'s own TLS server names. */
    public static TenantPlacement byServerName(VirtualClusters clusters, VirtualCluster cluster) {
        return new TenantPlacement(clusters, Optional.of(cluster), "whose TLS server name it asked for");
    }

    /** The virtual cluster {@code principal} is in on this listener, or why it is in none. */
    public Placed place(KafkaPrincipal principal) {
        Optional<VirtualCluster> named = clusters.of(principal);
        if (listenerCluster.isEmpty()) {
            return named.map(Placed::in).orElseGet(() -> Placed.refused(principal + " is in no virtual cluster"));
        }
        VirtualCluster own = listenerCluster.get();
        if (named.isPresent() && !named.get().name().equals(own.name())) {
            return Placed.refused(principal + " is in virtual cluster '" + named.get().name() + "', not in '"
                    + own.name() + "' " + entrance);
        }
        if (!own.principals().isEmpty() && named.isEmpty()) {
            return Placed.refused(principal + " is not one of the principals of virtual cluster '" + own.name() + "'");
        }
        return Placed.in(own);
    }

    /**
     * A connection's placement: its virtual cluster, or the reason it is in none (the connection is closed).
     */
    public record Placed(VirtualCluster cluster, String refusal) {
        static Placed in(VirtualCluster cluster) {
            return new Placed(cluster, null);
        }

        static Placed refused(String refusal) {
            return new Placed(null, refusal);
        }
    }
}
