package org.kafscale.proxy.core.security.tls;

import io.netty.handler.ssl.SslProvider;
import java.util.Objects;

/**
 * The TLS implementation every TLS context of the proxy is built with (the Kafka listener and its
 * per-broker ports, the broker channels, the LFS listener, etcd), and why it was chosen: one
 * choice for the whole process, made once at start-up by {@link TlsProviderChoice}.
 *
 * @param sslProvider Netty's provider: {@link SslProvider#OPENSSL} (BoringSSL through
 *     netty-tcnative) or {@link SslProvider#JDK}
 * @param reason why, for the one start-up line that names it
 */
public record TlsProvider(SslProvider sslProvider, String reason) {
    /** The JDK's provider, for contexts built without a configuration (tests, tools). */
    public static final TlsProvider JDK = new TlsProvider(SslProvider.JDK, "the default of code built without a choice");

    public TlsProvider {
        Objects.requireNonNull(sslProvider, "sslProvider");
        Objects.requireNonNull(reason, "reason");
        if (sslProvider == SslProvider.OPENSSL_REFCNT) {
            // Reference-counted contexts must be released by hand; nothing here does.
            throw new IllegalArgumentException("OPENSSL_REFCNT is not supported; use OPENSSL");
        }
    }

    public boolean isOpenSsl() {
        return sslProvider == SslProvider.OPENSSL;
    }

    /** "OpenSSL (BoringSSL)" or "JDK", as the start-up line says it. */
    public String displayName() {
        return isOpenSsl() ? "OpenSSL (BoringSSL)" : "JDK";
    }
}
