package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * BoringSSL ships for Linux x86_64 and aarch64, and this build runs on one of them: if it stopped
 * loading (a classifier dropped, a netty-tcnative that does not match Netty), {@code auto} would
 * fall back to the JDK without anyone noticing but for one log line. This test is what notices.
 */
class OpenSslOnThisMachineTest {
    @Test
    void boringSslLoads() {
        assertTrue(OpenSsl.isAvailable(), () -> "BoringSSL does not load: " + OpenSsl.unavailabilityCause());
        assertTrue(OpenSsl.versionString().startsWith("BoringSSL"), OpenSsl.versionString());
    }

    @Test
    void autoChoosesOpenSslWithTheDefaults() {
        TlsProvider chosen = TlsProviderChoice.choose(TlsProviderChoice.Mode.AUTO, ListenerTlsSettings.DEFAULT_PROTOCOLS,
                List.of());
        assertEquals(SslProvider.OPENSSL, chosen.sslProvider(), chosen.reason());
    }

    @Test
    void theSuitesTheEarlierAttemptFoundMissingAreMissingFromThisBoringSsl() {
        // The differences OpenSslDifferences guards against, checked against the real library.
        assertTrue(!OpenSsl.isCipherSuiteAvailable("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"));
        assertTrue(OpenSsl.isCipherSuiteAvailable("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
    }
}
