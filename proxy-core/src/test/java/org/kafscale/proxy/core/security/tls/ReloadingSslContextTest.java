package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.TestCertificates;

/** On both TLS providers: a reload is a new context from the files, whichever builds it. */
class ReloadingSslContextTest {
    private static final String BOTH = "org.kafscale.proxy.core.testing.BothTlsProviders#both";
    @TempDir
    static Path dir;
    private static TestCertificates.Identity first;
    private static TestCertificates.Identity renewed;

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates ca = TestCertificates.create(dir, "reload-test");
        first = ca.server("first");
        renewed = ca.server("renewed");
    }

    /** Copies of the first certificate's files, which each test then changes. */
    private static ListenerTlsSettings served(Path where, TlsProvider provider) throws Exception {
        Files.createDirectories(where);
        Path cert = Files.copy(first.chainFile(), where.resolve("tls.crt"), StandardCopyOption.REPLACE_EXISTING);
        Path key = Files.copy(first.keyFile(), where.resolve("tls.key"), StandardCopyOption.REPLACE_EXISTING);
        return ListenerTlsSettings.pem(cert, key).withProvider(provider);
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void unchangedFilesKeepTheContext(TlsProvider provider) throws Exception {
        // Given
        ReloadingSslContext<ReloadingSslContext.ListenerContexts> context = ReloadingSslContext.load(served(dir.resolve("unchanged-" + provider.sslProvider()), provider));
        SslContext before = context.current().server();
        // Then
        assertFalse(context.reloadIfChanged());
        assertSame(before, context.current().server());
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void aRenewalReplacingTheKeyBeforeTheCertificateKeepsTheOldContextUntilBothAreNew(TlsProvider provider)
            throws Exception {
        // Given
        ListenerTlsSettings settings = served(dir.resolve("half-" + provider.sslProvider()), provider);
        ListenerTlsSettings.KeyMaterial.Pem pem = (ListenerTlsSettings.KeyMaterial.Pem) settings.keyMaterial();
        ReloadingSslContext<ReloadingSslContext.ListenerContexts> context = ReloadingSslContext.load(settings);
        SslContext before = context.current().server();
        // When: the key is new and the certificate still the old one
        Files.copy(renewed.keyFile(), pem.keyFile(), StandardCopyOption.REPLACE_EXISTING);
        // Then: the mismatched pair is refused and the old context stays
        assertFalse(context.reloadIfChanged());
        assertSame(before, context.current().server());
        // When: the certificate follows
        Files.copy(renewed.chainFile(), pem.certFile(), StandardCopyOption.REPLACE_EXISTING);
        // Then
        assertTrue(context.reloadIfChanged());
        assertNotSame(before, context.current().server());
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void aBrokenCertificateFileKeepsTheOldContext(TlsProvider provider) throws Exception {
        // Given
        ListenerTlsSettings settings = served(dir.resolve("broken-" + provider.sslProvider()), provider);
        ReloadingSslContext<ReloadingSslContext.ListenerContexts> context = ReloadingSslContext.load(settings);
        SslContext before = context.current().server();
        // When
        Files.writeString(((ListenerTlsSettings.KeyMaterial.Pem) settings.keyMaterial()).certFile(), "garbage\n");
        // Then
        assertFalse(context.reloadIfChanged());
        assertFalse(context.reloadIfChanged(), "the same broken contents are tried (and logged) once");
        assertSame(before, context.current().server());
    }
}
