package org.kafscale.proxy.lfs.http;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.kafscale.proxy.core.security.tls.TlsProvider;

/**
 * HTTPS on the LFS listener.
 *
 * @param certFile PEM certificate chain
 * @param keyFile PEM private key (PKCS#8)
 * @param clientCaFile CA that client certificates must chain to; set to verify them
 * @param requireClientCert with a CA: refuse clients without a certificate (else verify one if given)
 * @param provider the TLS implementation the listener's context is built with
 */
public record TlsSettings(Path certFile, Path keyFile, Optional<Path> clientCaFile, boolean requireClientCert,
                          TlsProvider provider) {
    public TlsSettings {
        Objects.requireNonNull(provider, "provider");
    }

    /** Through the JDK's TLS. */
    public TlsSettings(Path certFile, Path keyFile, Optional<Path> clientCaFile, boolean requireClientCert) {
        this(certFile, keyFile, clientCaFile, requireClientCert, TlsProvider.JDK);
    }
}
