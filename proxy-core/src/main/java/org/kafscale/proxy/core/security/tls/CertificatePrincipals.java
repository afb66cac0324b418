package org.kafscale.proxy.core.security.tls;

import java.security.Principal;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * Who a TLS client is, the way a Kafka broker decides it: the verified certificate's subject (in
 * RFC 2253 form), mapped by {@code ssl.principal.mapping.rules}, as a {@code User} principal; a
 * client without a certificate is {@link KafkaPrincipal#ANONYMOUS}. The mapping is kafka-clients'
 * own {@link SslPrincipalMapper}, so rules behave exactly as they do on a broker.
 */
public final class CertificatePrincipals {
    private final SslPrincipalMapper mapper;

    /** @throws IllegalArgumentException if the rules do not parse */
    public CertificatePrincipals(String mappingRules) {
        this.mapper = SslPrincipalMapper.fromRules(mappingRules);
    }

    /** The principal of the client at the other end of {@code session}. */
    public KafkaPrincipal of(SSLSession session) {
        Principal peer;
        try {
            peer = session.getPeerPrincipal();
        } catch (SSLPeerUnverifiedException e) {
            return KafkaPrincipal.ANONYMOUS;
        }
        return ofSubject(peer);
    }

    /** The principal for a certificate subject. */
    KafkaPrincipal ofSubject(Principal subject) {
        if (!(subject instanceof X500Principal x500)) {
            return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, subject.getName());
        }
        try {
            return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, mapper.getName(x500.getName()));
        } catch (java.io.IOException e) {
            // No rule matched (Kafka fails the connection's authentication the same way).
            throw new IllegalStateException("no principal mapping rule matches the subject " + x500.getName(), e);
        }
    }
}
