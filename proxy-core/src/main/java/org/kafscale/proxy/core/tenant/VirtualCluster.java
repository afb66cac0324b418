package org.kafscale.proxy.core.tenant;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One tenant's Kafka, as its clients see it through the proxy: a name, the cluster id its
 * clients are told (stable across restarts and proxies, and not the real cluster's), how its names
 * map onto the real cluster's, and the principals whose connections are placed in it.
 *
 * @param name the operator's name for it, in log lines and refusals
 * @param clusterId the id Metadata and DescribeCluster answer its clients with
 * @param names its topic, group and transactional id prefixes
 * @param principals who is placed in it wherever it connects; each principal is in one virtual
 *     cluster at most. Empty for a virtual cluster reached only through a listener of its own
 *     ({@link TenantPlacement}); on that listener, a non-empty set also says who may use it.
 */
public record VirtualCluster(String name, String clusterId, TenantNames names, Set<KafkaPrincipal> principals) {

    public VirtualCluster {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(names, "names");
        principals = Set.copyOf(principals);
        if (name.isBlank()) {
            throw new IllegalArgumentException("a virtual cluster needs a name");
        }
    }

    /**
     * The cluster id a virtual cluster gets when none is set: derived from its name alone (a
     * name-based UUID, as Kafka writes ids), so every proxy in front of the cluster, before and
     * after a restart, tells its clients the same id.
     */
    public static String derivedClusterId(String name) {
        UUID uuid = UUID.nameUUIDFromBytes(("kafscale-proxy virtual cluster " + name).getBytes(StandardCharsets.UTF_8));
        return new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits()).toString();
    }
}
