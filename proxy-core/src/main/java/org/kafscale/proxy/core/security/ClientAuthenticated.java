package org.kafscale.proxy.core.security;

import java.util.Objects;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The user event a security handler fires up the client pipeline once it knows who the client
 * is (a verified TLS client certificate, later a SASL exchange). The connection handler records
 * it on the connection's {@code ConnectionContext}, so routing, authorization and the access log
 * see one principal, whichever layer established it.
 *
 * @param principal who the client is
 */
public record ClientAuthenticated(KafkaPrincipal principal) {
    public ClientAuthenticated {
        Objects.requireNonNull(principal, "principal");
    }
}
