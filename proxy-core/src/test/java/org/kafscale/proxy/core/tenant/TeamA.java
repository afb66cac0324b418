package org.kafscale.proxy.core.tenant;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * The virtual cluster the isolation tests rewrite for: team a, prefix {@code a.} for its topics,
 * groups and transactional ids, reached by User:alice; and the real cluster as the proxy knows it,
 * with team a's topic {@code a.orders} and another tenant's {@code b.orders}.
 */
final class TeamA {
    static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
    static final VirtualCluster CLUSTER = new VirtualCluster("team-a", VirtualCluster.derivedClusterId("team-a"),
            TenantNames.prefixed("a."), Set.of(ALICE));
    /** The id of team a's a.orders. */
    static final Uuid OWN = Uuid.randomUuid();
    /** The id of another tenant's b.orders. */
    static final Uuid FOREIGN = Uuid.randomUuid();
    static final TopologySnapshot SNAPSHOT = TopologySnapshot.of("real-cluster", 0, List.of(), List.of(
            TopicLayout.of("a.orders", OWN, false, Map.of()), TopicLayout.of("b.orders", FOREIGN, false, Map.of())));

    private TeamA() {
    }

    /** One request's scope: each request gets its own, as in the proxy. */
    static TenantScope scope() {
        return new TenantScope(CLUSTER, SNAPSHOT);
    }
}
