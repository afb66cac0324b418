package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslProvider;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TlsProviderChoiceTest {
    private static final List<String> DEFAULT_PROTOCOLS = ListenerTlsSettings.DEFAULT_PROTOCOLS;
    private static final Optional<Throwable> LOADS = Optional.empty();
    private static final Optional<Throwable> DOES_NOT_LOAD =
            Optional.of(new UnsatisfiedLinkError("no netty_tcnative_linux_x86_64 in java.library.path"));
    /** BoringSSL as it is: every suite but the DHE ones and CBC with SHA-256 exists. */
    private static final OpenSslDifferences BORINGSSL = new OpenSslDifferences(
            suite -> !suite.startsWith("TLS_DHE_") && !suite.endsWith("_CBC_SHA256"), Set.of("SSLv3", "TLSv1", "TLSv1.1"));

    private static TlsProvider choose(TlsProviderChoice.Mode mode, Optional<Throwable> unavailable,
                                      List<String> protocols, List<String> ciphers) {
        return TlsProviderChoice.choose(mode, unavailable, BORINGSSL, protocols, ciphers);
    }

    @Test
    void autoTakesOpenSslWhenItLoadsWithTheDefaults() {
        assertEquals(SslProvider.OPENSSL, choose(TlsProviderChoice.Mode.AUTO, LOADS, DEFAULT_PROTOCOLS, List.of())
                .sslProvider());
    }

    @Test
    void autoTakesOpenSslWithoutListenerTls() {
        assertEquals(SslProvider.OPENSSL, choose(TlsProviderChoice.Mode.AUTO, LOADS, List.of(), List.of()).sslProvider());
    }

    @Test
    void autoFallsBackToTheJdkWhenOpenSslDoesNotLoadSayingWhy() {
        // When
        TlsProvider chosen = choose(TlsProviderChoice.Mode.AUTO, DOES_NOT_LOAD, DEFAULT_PROTOCOLS, List.of());
        // Then
        assertEquals(SslProvider.JDK, chosen.sslProvider());
        assertTrue(chosen.reason().contains("does not load") && chosen.reason().contains("netty_tcnative"),
                chosen.reason());
    }

    @Test
    void opensslThatDoesNotLoadIsRefused() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> choose(TlsProviderChoice.Mode.OPENSSL, DOES_NOT_LOAD, DEFAULT_PROTOCOLS, List.of()));
        assertTrue(refused.getMessage().contains("does not load"), refused.getMessage());
    }

    @Test
    void jdkIsTheJdkEvenWhenOpenSslLoads() {
        assertEquals(SslProvider.JDK, choose(TlsProviderChoice.Mode.JDK, LOADS, DEFAULT_PROTOCOLS, List.of())
                .sslProvider());
    }

    @Test
    void autoFallsBackToTheJdkForACipherListBoringSslWouldReadDifferently() {
        // When: one TLS 1.3 suite, which BoringSSL cannot restrict to
        TlsProvider chosen = choose(TlsProviderChoice.Mode.AUTO, LOADS, DEFAULT_PROTOCOLS,
                List.of("TLS_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"));
        // Then
        assertEquals(SslProvider.JDK, chosen.sslProvider());
        assertTrue(chosen.reason().contains("cannot restrict TLS 1.3"), chosen.reason());
    }

    @Test
    void opensslWithACipherListBoringSslWouldReadDifferentlyIsRefused() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> choose(TlsProviderChoice.Mode.OPENSSL, LOADS, List.of("TLSv1.2"),
                        List.of("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256")));
        assertTrue(refused.getMessage().contains("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"), refused.getMessage());
    }

    @Test
    void opensslTakesACipherListBoringSslReadsTheSame() {
        // Given: TLS 1.2 only, and suites BoringSSL has
        List<String> ciphers = List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
        // Then
        assertEquals(SslProvider.OPENSSL, choose(TlsProviderChoice.Mode.OPENSSL, LOADS, List.of("TLSv1.2"), ciphers)
                .sslProvider());
    }

    @Test
    void modesParseInAnyCase() {
        assertEquals(TlsProviderChoice.Mode.OPENSSL, TlsProviderChoice.Mode.parse(" OpenSSL "));
        assertThrows(IllegalArgumentException.class, () -> TlsProviderChoice.Mode.parse("boringssl"));
    }
}
