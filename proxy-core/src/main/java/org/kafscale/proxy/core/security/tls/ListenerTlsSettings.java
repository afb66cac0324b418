package org.kafscale.proxy.core.security.tls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS on the Kafka listener (the bootstrap port and every per-broker port): what the proxy
 * presents, which client certificates it asks for, and how it keeps them current. Built by the
 * application's configuration; core never reads settings itself.
 *
 * @param keyMaterial the proxy's certificate chain and private key
 * @param clientCaFile the CA that signs client certificates (mTLS); empty: none asked for
 * @param clientCertificates whether a client must, may or need not present a certificate
 * @param protocols the TLS versions offered (for example {@code TLSv1.3}, {@code TLSv1.2})
 * @param ciphers the cipher suites offered; empty: the provider's defaults for those versions
 * @param principalMappingRules how a certificate's subject becomes a user name, in Kafka's
 *     {@code ssl.principal.mapping.rules} syntax ({@code DEFAULT}: the subject as is)
 * @param handshakeTimeout a handshake not finished within this closes the connection
 * @param reloadInterval how often the files are checked for a new certificate
 * @param provider the TLS implementation the contexts are built with
 */
public record ListenerTlsSettings(KeyMaterial keyMaterial, Optional<Path> clientCaFile,
                                  ClientCertificates clientCertificates, List<String> protocols, List<String> ciphers,
                                  String principalMappingRules, Duration handshakeTimeout, Duration reloadInterval,
                                  TlsProvider provider) {

    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(10);

    public ListenerTlsSettings {
        Objects.requireNonNull(keyMaterial, "keyMaterial");
        Objects.requireNonNull(provider, "provider");
        protocols = List.copyOf(protocols);
        ciphers = List.copyOf(ciphers);
        if (clientCaFile.isEmpty() && clientCertificates != ClientCertificates.NONE) {
            throw new IllegalArgumentException("client certificates " + clientCertificates + " need a client CA");
        }
    }

    /** Server-only TLS from PEM files, with the defaults for everything else (tests, examples). */
    public static ListenerTlsSettings pem(Path certFile, Path keyFile) {
        return new ListenerTlsSettings(new KeyMaterial.Pem(certFile, keyFile, Optional.empty()), Optional.empty(),
                ClientCertificates.NONE, DEFAULT_PROTOCOLS, List.of(), "DEFAULT", DEFAULT_HANDSHAKE_TIMEOUT,
                DEFAULT_RELOAD_INTERVAL, TlsProvider.JDK);
    }

    /** The same settings, built with {@code other}. */
    public ListenerTlsSettings withProvider(TlsProvider other) {
        return new ListenerTlsSettings(keyMaterial, clientCaFile, clientCertificates, protocols, ciphers,
                principalMappingRules, handshakeTimeout, reloadInterval, other);
    }

    /** Every file the context is built from: a change to any of them is a new certificate to load. */
    public List<Path> files() {
        return clientCaFile.map(ca -> concat(keyMaterial.files(), ca)).orElse(keyMaterial.files());
    }

    private static List<Path> concat(List<Path> files, Path more) {
        return java.util.stream.Stream.concat(files.stream(), java.util.stream.Stream.of(more)).toList();
    }

    /** Whether the listener asks clients for a certificate. */
    public enum ClientCertificates {
        /** No certificate asked for: every client is {@code User:ANONYMOUS} as far as TLS goes. */
        NONE,
        /** Asked for and verified when given; a client without one still connects (anonymous). */
        OPTIONAL,
        /** A client without a certificate the client CA trusts fails the handshake. */
        REQUIRED
    }

    /** Where the proxy's certificate chain and private key come from. */
    public sealed interface KeyMaterial {
        /** The files the material is read from. */
        List<Path> files();

        /**
         * PEM files.
         *
         * @param certFile the certificate chain, the proxy's own certificate first
         * @param keyFile the private key (PKCS#8, or PKCS#1 when BouncyCastle is present)
         * @param keyPassword the key's password when it is encrypted
         */
        record Pem(Path certFile, Path keyFile, Optional<String> keyPassword) implements KeyMaterial {
            @Override
            public List<Path> files() {
                return List.of(certFile, keyFile);
            }
        }

        /**
         * A key store holding one private key entry and its chain; the key's password is the store's.
         *
         * @param type {@code PKCS12} or {@code JKS}
         */
        record KeyStoreFile(Path file, String password, String type) implements KeyMaterial {
            @Override
            public List<Path> files() {
                return List.of(file);
            }

            @Override
            public String toString() {
                return "KeyStoreFile[file=" + file + ", type=" + type + "]";
            }
        }
    }
}
