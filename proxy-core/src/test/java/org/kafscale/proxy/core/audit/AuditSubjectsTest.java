package org.kafscale.proxy.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.tenant.TenantNames;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

class AuditSubjectsTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private final AuditSubjects subjects = new AuditSubjects(new VirtualClusters(List.of(new VirtualCluster("team-a",
            VirtualCluster.derivedClusterId("team-a"), TenantNames.prefixed("team-a."), Set.of(ALICE)))));

    @Test
    void aPrincipalIsPlacedInItsVirtualCluster() {
        AuditEvent.Subject subject = subjects.of("c1", new InetSocketAddress("10.0.0.1", 4000), ALICE);

        assertEquals(new AuditEvent.Subject("c1", "10.0.0.1:4000", "User:alice", "team-a"), subject);
    }

    @Test
    void aPrincipalOutsideEveryVirtualClusterAndAnUnknownOneHaveNone() {
        assertNull(subjects.of("c2", null, new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob")).virtualCluster());
        AuditEvent.Subject unknown = subjects.of("c3", null, null);
        assertNull(unknown.principal());
        assertNull(unknown.virtualCluster());
    }

    @Test
    void theVirtualClusterReachedByListenerWinsOverThePrincipals() {
        AuditEvent.Subject subject = subjects.of("c4", null, ALICE, "team-c");

        assertEquals("team-c", subject.virtualCluster());
    }
}
