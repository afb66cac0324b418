package org.kafscale.proxy.core.security.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.ReferenceCountUtil;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;

/**
 * Builds the listener's server {@link SslContext} from its files, once at start-up (where a bad
 * file stops the proxy) and again at each reload (where it keeps the old context). Every failure
 * is a {@link TlsMaterialException} naming the part and the file.
 *
 * <p>Also builds the context the proxy's own readiness probe dials the listener with: it trusts
 * exactly the listener's certificate chain (the probe talks to no one else) and, when the listener
 * asks for client certificates, presents that same certificate.
 */
final class ServerSslContexts {
    private ServerSslContexts() {
    }

    static SslContext build(ListenerTlsSettings settings) {
        SslContextBuilder builder = settings.keyMaterial() instanceof ListenerTlsSettings.KeyMaterial.Pem pem
                ? fromPem(pem) : fromKeyStore((ListenerTlsSettings.KeyMaterial.KeyStoreFile) settings.keyMaterial());
        settings.clientCaFile().ifPresent(ca -> {
            requireCertificates(TlsMaterialException.Part.CLIENT_CA, ca);
            builder.trustManager(ca.toFile());
        });
        builder.clientAuth(switch (settings.clientCertificates()) {
            case NONE -> ClientAuth.NONE;
            case OPTIONAL -> ClientAuth.OPTIONAL;
            case REQUIRED -> ClientAuth.REQUIRE;
        });
        builder.protocols(settings.protocols());
        withProvider(builder, settings.provider());
        if (!settings.ciphers().isEmpty()) {
            builder.ciphers(settings.ciphers());
        }
        SslContext context;
        try {
            context = builder.build();
        } catch (Exception e) {
            throw new TlsMaterialException(blamed(settings), settings.keyMaterial().files().get(0), e);
        }
        // An engine is made (and released: OpenSSL's holds native memory) here so an unusable
        // protocol or cipher fails now, not per client.
        ReferenceCountUtil.release(context.newEngine(ByteBufAllocator.DEFAULT));
        return context;
    }

    /** The client side of the probe's connection to this listener. */
    static SslContext buildSelfClient(ListenerTlsSettings settings) {
        // No host name check: the probe dials the listener over loopback, whose address the
        // certificate need not name; trusting only the listener's own chain is what protects it.
        SslContextBuilder builder = withProvider(SslContextBuilder.forClient(), settings.provider())
                .endpointIdentificationAlgorithm(null).protocols(settings.protocols());
        if (!settings.ciphers().isEmpty()) {
            builder.ciphers(settings.ciphers());
        }
        boolean presentCertificate = settings.clientCertificates() != ListenerTlsSettings.ClientCertificates.NONE;
        try {
            if (settings.keyMaterial() instanceof ListenerTlsSettings.KeyMaterial.Pem pem) {
                builder.trustManager(pem.certFile().toFile());
                if (presentCertificate) {
                    builder.keyManager(pem.certFile().toFile(), pem.keyFile().toFile(), pem.keyPassword().orElse(null));
                }
            } else {
                ListenerTlsSettings.KeyMaterial.KeyStoreFile file =
                        (ListenerTlsSettings.KeyMaterial.KeyStoreFile) settings.keyMaterial();
                KeyStore store = loadKeyStore(file);
                builder.trustManager(chainOf(store));
                if (presentCertificate) {
                    builder.keyManager(keyManagers(store, file));
                }
            }
            return builder.build();
        } catch (Exception e) {
            throw new TlsMaterialException(blamed(settings), settings.keyMaterial().files().get(0), e);
        }
    }

    /**
     * Sets the provider. On OpenSSL, also lets the engine hand certificate verification and
     * certificate selection out as delegated tasks (Netty keeps them inline by default), so they
     * run on {@link ListenerTls}'s handshake pool as the JDK engine's tasks do, not on an event loop.
     */
    private static SslContextBuilder withProvider(SslContextBuilder builder, TlsProvider provider) {
        builder.sslProvider(provider.sslProvider());
        if (provider.isOpenSsl()) {
            builder.option(OpenSslContextOption.USE_TASKS, true);
        }
        return builder;
    }

    private static java.security.cert.X509Certificate[] chainOf(KeyStore store) throws Exception {
        for (String alias : java.util.Collections.list(store.aliases())) {
            if (store.isKeyEntry(alias)) {
                return java.util.Arrays.stream(store.getCertificateChain(alias))
                        .map(java.security.cert.X509Certificate.class::cast)
                        .toArray(java.security.cert.X509Certificate[]::new);
            }
        }
        throw new IllegalArgumentException("the key store holds no private key entry");
    }

    private static TlsMaterialException.Part blamed(ListenerTlsSettings settings) {
        return settings.keyMaterial() instanceof ListenerTlsSettings.KeyMaterial.Pem
                ? TlsMaterialException.Part.PRIVATE_KEY : TlsMaterialException.Part.KEY_STORE;
    }

    private static SslContextBuilder fromPem(ListenerTlsSettings.KeyMaterial.Pem pem) {
        requireCertificates(TlsMaterialException.Part.CERTIFICATE, pem.certFile());
        if (pem.keyPassword().isEmpty()) {
            try {
                KeyPairCheck.requireMatch(pem.certFile(), pem.keyFile());
            } catch (Exception e) {
                throw new TlsMaterialException(TlsMaterialException.Part.PRIVATE_KEY, pem.keyFile(), e);
            }
        }
        try {
            return SslContextBuilder.forServer(pem.certFile().toFile(), pem.keyFile().toFile(),
                    pem.keyPassword().orElse(null));
        } catch (RuntimeException e) {
            throw new TlsMaterialException(TlsMaterialException.Part.PRIVATE_KEY, pem.keyFile(), e);
        }
    }

    private static SslContextBuilder fromKeyStore(ListenerTlsSettings.KeyMaterial.KeyStoreFile file) {
        try {
            return SslContextBuilder.forServer(keyManagers(loadKeyStore(file), file));
        } catch (Exception e) {
            throw new TlsMaterialException(TlsMaterialException.Part.KEY_STORE, file.file(), e);
        }
    }

    private static KeyStore loadKeyStore(ListenerTlsSettings.KeyMaterial.KeyStoreFile file) throws Exception {
        try (InputStream in = Files.newInputStream(file.file())) {
            KeyStore store = KeyStore.getInstance(file.type());
            store.load(in, file.password().toCharArray());
            return store;
        }
    }

    private static KeyManagerFactory keyManagers(KeyStore store, ListenerTlsSettings.KeyMaterial.KeyStoreFile file)
            throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, file.password().toCharArray());
        return keys;
    }

    /** Reads the file as X.509 certificates (PEM or DER), failing unless it holds at least one. */
    private static void requireCertificates(TlsMaterialException.Part part, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<?> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("no certificate in the file");
            }
        } catch (Exception e) {
            throw new TlsMaterialException(part, file, e);
        }
    }
}
