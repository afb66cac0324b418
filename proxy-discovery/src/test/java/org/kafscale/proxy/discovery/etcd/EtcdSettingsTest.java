package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import io.etcd.jetcd.Client;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.testkit.TestCertificates;

/** TLS to etcd is set up with the process's provider, whichever it is (gRPC would otherwise pick by itself). */
class EtcdSettingsTest {
    @TempDir
    static Path dir;

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"OPENSSL", "JDK"})
    void aTlsClientIsBuiltWithEitherProvider(SslProvider provider) throws Exception {
        // Given
        TestCertificates ca = TestCertificates.create(dir.resolve(provider.name()), "etcd");
        TestCertificates.Identity client = ca.client("proxy");
        EtcdSettings settings = new EtcdSettings(List.of("https://127.0.0.1:2379"), Optional.empty(), Optional.empty(),
                Optional.of(ca.caFile()), Optional.of(client.chainFile()), Optional.of(client.keyFile()),
                new TlsProvider(provider, "test"));
        // Then: the context, with ALPN for gRPC, builds (no connection is made until a call)
        assertDoesNotThrow(() -> {
            try (Client built = settings.connect()) {
                built.getKVClient();
            }
        });
    }
}
