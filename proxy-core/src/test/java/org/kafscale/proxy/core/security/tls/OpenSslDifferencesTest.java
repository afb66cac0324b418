package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The settings on which BoringSSL and the JDK would differ, each as the reason it gives. */
class OpenSslDifferencesTest {
    private static final OpenSslDifferences BORINGSSL = new OpenSslDifferences(
            suite -> !suite.startsWith("TLS_DHE_") && !suite.endsWith("_CBC_SHA256"), Set.of("SSLv3", "TLSv1", "TLSv1.1"));
    private static final List<String> BOTH = List.of("TLSv1.3", "TLSv1.2");

    private static String difference(List<String> protocols, List<String> ciphers) {
        Optional<String> found = BORINGSSL.of(protocols, ciphers);
        assertTrue(found.isPresent(), "expected a difference for " + protocols + " " + ciphers);
        return found.get();
    }

    @Test
    void theDefaultsMeanTheSame() {
        assertEquals(Optional.empty(), BORINGSSL.of(BOTH, List.of()));
    }

    @Test
    void aProtocolTheJdkDisablesWouldBeOpenedByBoringSsl() {
        assertTrue(difference(List.of("TLSv1.2", "TLSv1.1"), List.of()).contains("TLSv1.1"));
    }

    @Test
    void aListRestrictingTls13SuitesCannotBeHonoured() {
        assertTrue(difference(BOTH, List.of("TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"))
                .contains("cannot restrict TLS 1.3"));
    }

    @Test
    void aListWithOnlyTls12SuitesWouldStillOfferEveryTls13Suite() {
        assertTrue(difference(BOTH, List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")).contains("cannot restrict TLS 1.3"));
    }

    @Test
    void aListWithEveryTls13SuiteMeansTheSame() {
        List<String> ciphers = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                "TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        assertEquals(Optional.empty(), BORINGSSL.of(BOTH, ciphers));
    }

    @Test
    void aListWithNoTls12SuiteWouldEnableEveryTls12Suite() {
        assertTrue(difference(List.of("TLSv1.2"), List.of("TLS_AES_128_GCM_SHA256")).contains("no TLS 1.2 cipher suite"));
    }

    @Test
    void aTls13OnlyListOnATls13OnlyListenerMeansTheSame() {
        assertEquals(Optional.empty(), BORINGSSL.of(List.of("TLSv1.3"), List.copyOf(OpenSslDifferences.BORINGSSL_TLS13_SUITES)));
    }

    @Test
    void aSuiteBoringSslLacksIsNamed() {
        assertTrue(difference(List.of("TLSv1.2"), List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                "TLS_RSA_WITH_AES_128_CBC_SHA256")).contains("TLS_RSA_WITH_AES_128_CBC_SHA256"));
    }
}
