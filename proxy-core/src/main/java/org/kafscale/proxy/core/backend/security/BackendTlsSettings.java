package org.kafscale.proxy.core.backend.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.kafscale.proxy.core.security.tls.TlsProvider;

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
 * @param reloadInterval how often the files are checked for new contents; new broker channels use them
 * @param provider the TLS implementation the context is built with
 */
public record BackendTlsSettings(Path caFile, Path certFile, Path keyFile, boolean verifyHostname,
                                 Duration reloadInterval, TlsProvider provider) {
    /** How often the files are checked unless said otherwise (as the listener's). */
    public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(10);

    public BackendTlsSettings {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("a client certificate needs its key and a key its certificate");
        }
        Objects.requireNonNull(reloadInterval, "reloadInterval");
        Objects.requireNonNull(provider, "provider");
    }

    /** Files checked every {@link #DEFAULT_RELOAD_INTERVAL}, through the JDK's TLS. */
    public BackendTlsSettings(Path caFile, Path certFile, Path keyFile, boolean verifyHostname) {
        this(caFile, certFile, keyFile, verifyHostname, DEFAULT_RELOAD_INTERVAL, TlsProvider.JDK);
    }

    /** Trusting {@code caFile}, no client certificate, hostnames verified. */
    public static BackendTlsSettings trusting(Path caFile) {
        return new BackendTlsSettings(Objects.requireNonNull(caFile, "caFile"), null, null, true);
    }
}
