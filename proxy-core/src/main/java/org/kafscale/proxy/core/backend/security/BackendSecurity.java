package org.kafscale.proxy.core.backend.security;

import java.util.Optional;

/**
 * How every connection the proxy opens to a broker is secured: TLS, SASL, both or neither. The
 * application reads it from its settings; {@link org.kafscale.proxy.core.backend.BackendConnector}
 * applies it to each channel before handing the channel out.
 */
public record BackendSecurity(Optional<BackendTlsSettings> tls, Optional<BackendSaslSettings> sasl) {
    /** Plaintext, unauthenticated. */
    public static final BackendSecurity NONE = new BackendSecurity(Optional.empty(), Optional.empty());

    /** Kafka's name for what this amounts to: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL. */
    public String protocol() {
        return (sasl.isPresent() ? "SASL_" : "") + (tls.isPresent() ? "SSL" : "PLAINTEXT");
    }
}
