package org.kafscale.proxy.core.backend.security;

import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS towards the brokers, as configured: whom to trust, what to present, whether to check the
 * broker's name.
 *
 * @param caFile PEM CA bundle the brokers' certificates must chain to; {@code null} for the JVM's
 *               default trust store
 * @param certFile PEM client certificate (chain) to present, with {@code keyFile}; {@code null} for none
 * @param keyFile PKCS#8 PEM key of {@code certFile}; {@code null} for none
 * @param verifyHostname whether the broker's certificate must name the host the proxy dialled
 *                       (endpoint identification {@code HTTPS}, as Kafka's clients do by default)
 */
public record BackendTlsSettings(Path caFile, Path certFile, Path keyFile, boolean verifyHostname) {
    public BackendTlsSettings {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("a client certificate needs its key and a key its certificate");
        }
    }

    /** Trusting {@code caFile}, no client certificate, hostnames verified. */
    public static BackendTlsSettings trusting(Path caFile) {
        return new BackendTlsSettings(Objects.requireNonNull(caFile, "caFile"), null, null, true);
    }
}
