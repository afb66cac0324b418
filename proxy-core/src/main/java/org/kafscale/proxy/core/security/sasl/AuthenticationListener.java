package org.kafscale.proxy.core.security.sasl;

import java.net.SocketAddress;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Hears each SASL authentication with who and where (the audit trail); {@link SaslObserver}
 * hears only bounded labels, for metrics. Called on the connection's event loop: must not block.
 */
@FunctionalInterface
public interface AuthenticationListener {
    AuthenticationListener NONE = attempt -> {
    };

    void authentication(Attempt attempt);

    /**
     * One authentication that ended.
     *
     * @param mechanism the mechanism's Kafka name, or {@link SaslObserver#UNSUPPORTED}
     * @param principal the principal proven; for a failure, the one the client claimed in its
     *                  first token (PLAIN and SCRAM name the user in clear), or null when none was read
     * @param connection the connection's id, as its log lines carry it
     * @param clientAddress the client's address: a PROXY protocol header's source when there was one
     * @param peerAddress the socket's own remote address (a header cannot change it)
     * @param reason why it failed, as logged; null for a success
     * @param virtualCluster the virtual cluster the connection reached by where it came in (its own
     *                       listener, its TLS server name), whoever logs in; null on the shared listener
     */
    record Attempt(String mechanism, SaslObserver.Outcome outcome, KafkaPrincipal principal, String connection,
                   SocketAddress clientAddress, SocketAddress peerAddress, String reason, String virtualCluster) {

        /** An attempt on the shared listener, where only the principal can say which virtual cluster. */
        public Attempt(String mechanism, SaslObserver.Outcome outcome, KafkaPrincipal principal, String connection,
                       SocketAddress clientAddress, SocketAddress peerAddress, String reason) {
            this(mechanism, outcome, principal, connection, clientAddress, peerAddress, reason, null);
        }
    }
}
