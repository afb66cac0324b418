package org.kafscale.proxy.lfs.http;

import java.nio.file.Path;
import java.util.Optional;

/**
 * HTTPS on the LFS listener.
 *
 * @param certFile PEM certificate chain
 * @param keyFile PEM private key (PKCS#8)
 * @param clientCaFile CA that client certificates must chain to; set to verify them
 * @param requireClientCert with a CA: refuse clients without a certificate (else verify one if given)
 */
public record TlsSettings(Path certFile, Path keyFile, Optional<Path> clientCaFile, boolean requireClientCert) {
}
