package org.kafscale.proxy.core.audit;

import java.net.SocketAddress;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.policy.PolicyConnection;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/** Makes the {@link AuditEvent.Subject} of a connection: its principal placed in its virtual cluster, if any. */
public final class AuditSubjects {
    private final VirtualClusters clusters;

    public AuditSubjects(VirtualClusters clusters) {
        this.clusters = clusters;
    }

    public AuditEvent.Subject of(PolicyConnection connection) {
        return of(connection.id(), connection.clientAddress(), connection.principal());
    }

    /** @param principal who the client is or claims to be; null when not even a claim was read */
    public AuditEvent.Subject of(String connection, SocketAddress client, KafkaPrincipal principal) {
        String cluster = principal == null ? null : clusters.of(principal).map(VirtualCluster::name).orElse(null);
        return new AuditEvent.Subject(connection, AuditEvent.address(client),
                principal == null ? null : principal.toString(), cluster);
    }
}
