package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class VirtualClustersTest {
    private static VirtualCluster cluster(String name, String prefix, String... users) {
        return new VirtualCluster(name, VirtualCluster.derivedClusterId(name), TenantNames.prefixed(prefix),
                Set.of(users).stream().map(u -> new KafkaPrincipal("User", u)).collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void aConnectionIsPlacedByItsPrincipal() {
        VirtualClusters clusters = new VirtualClusters(List.of(cluster("team-a", "a.", "alice"),
                cluster("team-b", "b.", "bob", "bert")));
        assertEquals("team-b", clusters.of(new KafkaPrincipal("User", "bert")).orElseThrow().name());
        assertTrue(clusters.of(new KafkaPrincipal("User", "carol")).isEmpty());
        assertTrue(clusters.of(KafkaPrincipal.ANONYMOUS).isEmpty());
    }

    @Test
    void theDerivedClusterIdIsStableAKafkaIdAndPerName() {
        String id = VirtualCluster.derivedClusterId("team-a");
        assertEquals(id, VirtualCluster.derivedClusterId("team-a"));
        assertNotEquals(id, VirtualCluster.derivedClusterId("team-b"));
        assertEquals(id, Uuid.fromString(id).toString());
    }

    @Test
    void collisionsAreRefusedNamingBothClusters() {
        IllegalArgumentException principal = assertThrows(IllegalArgumentException.class, () -> new VirtualClusters(
                List.of(cluster("team-a", "a.", "alice"), cluster("team-b", "b.", "alice"))));
        assertTrue(principal.getMessage().contains("team-a") && principal.getMessage().contains("team-b"));
        IllegalArgumentException prefix = assertThrows(IllegalArgumentException.class, () -> new VirtualClusters(
                List.of(cluster("team-a", "a.", "alice"), cluster("team-ab", "a.b.", "bob"))));
        assertTrue(prefix.getMessage().contains("'a.'"), prefix.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new VirtualClusters(
                List.of(cluster("team-a", "a.", "alice"), cluster("team-a", "b.", "bob"))));
    }
}
