package org.kafscale.proxy.core.security.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
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
        builder.sslProvider(SslProvider.JDK).protocols(settings.protocols());
        if (!settings.ciphers().isEmpty()) {
            builder.ciphers(settings.ciphers());
        }
        SslContext context;
        try {
            context = builder.build();
        } catch (Exception e) {
            throw new TlsMaterialException(blamed(settings), settings.keyMaterial().files().get(0), e);
        }
        // An engine is made (and dropped) here so an unusable protocol or cipher fails now, not per client.
        context.newEngine(ByteBufAllocator.DEFAULT);
        return context;
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
        try (InputStream in = Files.newInputStream(file.file())) {
            KeyStore store = KeyStore.getInstance(file.type());
            char[] password = file.password().toCharArray();
            store.load(in, password);
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            return SslContextBuilder.forServer(keys);
        } catch (Exception e) {
            throw new TlsMaterialException(TlsMaterialException.Part.KEY_STORE, file.file(), e);
        }
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
