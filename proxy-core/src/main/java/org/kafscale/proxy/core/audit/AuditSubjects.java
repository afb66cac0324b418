package org.kafscale.proxy.core.audit;

import java.net.SocketAddress;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.policy.PolicyConnection;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/**
 * Makes the {@link AuditEvent.Subject} of a connection: its principal and its virtual cluster, if
 * any (the one it was placed in; before placement, at authentication, the one naming its principal).
 */
public final class AuditSubjects {
    private final VirtualClusters clusters;

    public AuditSubjects(VirtualClusters clusters) {
        this.clusters = clusters;
    }

    /** The subject of a request: its connection's virtual cluster as the tenant policy placed it (by listener too). */
    public AuditEvent.Subject of(PolicyConnection connection) {
        AuditEvent.Subject subject = of(connection.id(), connection.clientAddress(), connection.principal());
        return connection.virtualCluster().map(cluster -> new AuditEvent.Subject(subject.connection(),
                subject.clientAddress(), subject.principal(), cluster)).orElse(subject);
    }

    /** @param principal who the client is or claims to be; null when not even a claim was read */
    public AuditEvent.Subject of(String connection, SocketAddress client, KafkaPrincipal principal) {
        return of(connection, client, principal, null);
    }

    /**
     * @param reached the virtual cluster the connection reached by its listener or TLS name, which
     *                wins over the principal's; null on the shared listener
     */
    public AuditEvent.Subject of(String connection, SocketAddress client, KafkaPrincipal principal, String reached) {
        String cluster = reached != null ? reached
                : principal == null ? null : clusters.of(principal).map(VirtualCluster::name).orElse(null);
        return new AuditEvent.Subject(connection, AuditEvent.address(client),
                principal == null ? null : principal.toString(), cluster);
    }
}
