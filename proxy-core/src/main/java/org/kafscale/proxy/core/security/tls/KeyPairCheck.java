package org.kafscale.proxy.core.security.tls;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Optional;

/**
 * Whether a PEM private key belongs to the first certificate of a chain. The JDK engine would
 * accept a mismatched pair and then fail every handshake; during a rotation that replaces the
 * certificate and the key one file after the other, the reload sees exactly such a pair for a
 * moment, and must keep the old certificate rather than load it.
 *
 * <p>Checks unencrypted PKCS#8 keys ({@code BEGIN PRIVATE KEY}) of RSA, EC and EdDSA certificates
 * by signing a few bytes and verifying them with the certificate; other keys are not checked.
 */
public final class KeyPairCheck {
    private static final String PKCS8_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String PKCS8_END = "-----END PRIVATE KEY-----";
    private static final byte[] PROBE = "kafscale-proxy key check".getBytes(StandardCharsets.US_ASCII);

    private KeyPairCheck() {
    }

    /** @throws IllegalArgumentException if the key can be checked and does not match */
    public static void requireMatch(Path certFile, Path keyFile) throws Exception {
        String pem = Files.readString(keyFile, StandardCharsets.US_ASCII);
        int begin = pem.indexOf(PKCS8_BEGIN);
        int end = pem.indexOf(PKCS8_END);
        if (begin < 0 || end < begin) {
            return;
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + PKCS8_BEGIN.length(), end));
        X509Certificate cert;
        try (InputStream in = Files.newInputStream(certFile)) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        PublicKey publicKey = cert.getPublicKey();
        Optional<String> algorithm = signatureAlgorithm(publicKey.getAlgorithm());
        if (algorithm.isEmpty()) {
            return;
        }
        PrivateKey privateKey = KeyFactory.getInstance(publicKey.getAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(der));
        Signature signer = Signature.getInstance(algorithm.get());
        signer.initSign(privateKey);
        signer.update(PROBE);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(algorithm.get());
        verifier.initVerify(publicKey);
        verifier.update(PROBE);
        if (!verifier.verify(signature)) {
            throw new IllegalArgumentException("the private key does not belong to the certificate " + certFile);
        }
    }

    private static Optional<String> signatureAlgorithm(String keyAlgorithm) {
        return switch (keyAlgorithm) {
            case "RSA" -> Optional.of("SHA256withRSA");
            case "EC" -> Optional.of("SHA256withECDSA");
            case "EdDSA", "Ed25519" -> Optional.of("Ed25519");
            default -> Optional.empty();
        };
    }
}
