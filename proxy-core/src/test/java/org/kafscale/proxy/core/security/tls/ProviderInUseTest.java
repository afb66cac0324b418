package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.kafscale.proxy.core.backend.security.BackendTls;
import org.kafscale.proxy.core.backend.security.BackendTlsSettings;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.testkit.TestCertificates;

/** The provider chosen is the provider of every engine: the listener's, the probe's and the broker channels'. */
class ProviderInUseTest {
    private static final String BOTH = "org.kafscale.proxy.core.testing.BothTlsProviders#both";

    @TempDir
    static Path dir;
    private static TestCertificates ca;
    private static TestCertificates.Identity server;

    @BeforeAll
    static void certificates() throws Exception {
        ca = TestCertificates.create(dir, "provider-in-use");
        server = ca.server("proxy");
    }

    private static boolean isOpenSsl(SslHandler handler) {
        SSLEngine engine = handler.engine();
        try {
            return engine instanceof OpenSslEngine;
        } finally {
            ReferenceCountUtil.release(engine);
        }
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void theListenerAndItsProbeUseTheChosenProvider(TlsProvider provider) {
        // Given
        try (ListenerTls tls = ListenerTls.start(ListenerTlsSettings.pem(server.chainFile(), server.keyFile())
                .withProvider(provider))) {
            // Then
            assertEquals(provider.isOpenSsl(), isOpenSsl(tls.newHandler(ByteBufAllocator.DEFAULT)));
            assertEquals(provider.isOpenSsl(), isOpenSsl(tls.newSelfClientHandler(ByteBufAllocator.DEFAULT)));
        }
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void brokerChannelsUseTheChosenProvider(TlsProvider provider) throws Exception {
        // Given
        BackendTls tls = BackendTls.create(new BackendTlsSettings(ca.caFile(), null, null, true,
                BackendTlsSettings.DEFAULT_RELOAD_INTERVAL, provider), Duration.ofSeconds(1));
        // Then
        assertEquals(provider.isOpenSsl(), isOpenSsl(tls.newHandler(ByteBufAllocator.DEFAULT,
                new BrokerEndpoint(0, "localhost", 9093, null))));
    }
}
