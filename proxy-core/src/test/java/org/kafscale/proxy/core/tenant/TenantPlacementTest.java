package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/** Which virtual cluster a connection is in: by its principal, or by the listener it came in on. */
class TenantPlacementTest {
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
    private static final KafkaPrincipal CAROL = new KafkaPrincipal("User", "carol");
    /** Team b is reached on a listener of its own by anyone. */
    private static final VirtualCluster TEAM_B = new VirtualCluster("team-b", VirtualCluster.derivedClusterId("team-b"),
            TenantNames.prefixed("b."), Set.of());
    /** Team c is reached on a listener of its own by bob only. */
    private static final VirtualCluster TEAM_C = new VirtualCluster("team-c", VirtualCluster.derivedClusterId("team-c"),
            TenantNames.prefixed("c."), Set.of(BOB));
    private static final VirtualClusters CLUSTERS = new VirtualClusters(List.of(TeamA.CLUSTER, TEAM_B, TEAM_C));

    @Test
    void onTheSharedListenerThePrincipalDecides() {
        TenantPlacement shared = new TenantPlacement(CLUSTERS, Optional.empty());

        assertEquals(TeamA.CLUSTER, shared.place(TeamA.ALICE).cluster());
        assertEquals(TEAM_C, shared.place(BOB).cluster());
        TenantPlacement.Placed carol = shared.place(CAROL);
        assertNull(carol.cluster());
        assertEquals("User:carol is in no virtual cluster", carol.refusal());
    }

    @Test
    void onAVirtualClustersOwnListenerEveryoneIsInItButAnotherTenantsPrincipal() {
        TenantPlacement teamB = new TenantPlacement(CLUSTERS, Optional.of(TEAM_B));

        assertEquals(TEAM_B, teamB.place(KafkaPrincipal.ANONYMOUS).cluster());
        assertEquals(TEAM_B, teamB.place(CAROL).cluster());
        assertEquals("User:alice is in virtual cluster 'team-a', not in 'team-b' whose listener it connected to",
                teamB.place(TeamA.ALICE).refusal());
    }

    @Test
    void aListenerOfAVirtualClusterThatNamesPrincipalsServesOnlyThem() {
        TenantPlacement teamC = new TenantPlacement(CLUSTERS, Optional.of(TEAM_C));

        assertEquals(TEAM_C, teamC.place(BOB).cluster());
        assertEquals("User:carol is not one of the principals of virtual cluster 'team-c'", teamC.place(CAROL).refusal());
        assertEquals("User:ANONYMOUS is not one of the principals of virtual cluster 'team-c'",
                teamC.place(KafkaPrincipal.ANONYMOUS).refusal());
    }

    @Test
    void byItsTlsServerNamesAVirtualClusterIsPlacedAsByAListenerOfItsOwn() {
        TenantPlacement teamB = TenantPlacement.byServerName(CLUSTERS, TEAM_B);
        TenantPlacement teamC = TenantPlacement.byServerName(CLUSTERS, TEAM_C);

        assertEquals(TEAM_B, teamB.place(KafkaPrincipal.ANONYMOUS).cluster());
        assertEquals("User:alice is in virtual cluster 'team-a', not in 'team-b' whose TLS server name it asked for",
                teamB.place(TeamA.ALICE).refusal());
        assertEquals(TEAM_C, teamC.place(BOB).cluster());
        assertEquals("User:carol is not one of the principals of virtual cluster 'team-c'", teamC.place(CAROL).refusal());
    }
}
