package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.testing.BothTlsProviders;
import org.kafscale.proxy.lfs.http.docs.DocsRoutes;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The LFS listener over HTTPS, verifying client certificates when a client CA is configured
 * (mTLS), the same on both TLS providers: one listener each.
 */
class LfsTlsIT {
    private static final String BOTH = "org.kafscale.proxy.core.testing.BothTlsProviders#both";
    private static EventLoopGroup workers;
    private static final Map<SslProvider, LfsHttpServer> SERVERS = new EnumMap<>(SslProvider.class);
    private static TestCertificates ca;
    private static TestCertificates.Identity clientCert;
    private static TestCertificates.Identity strangerCert;
    private static java.util.concurrent.ExecutorService blocking;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("lfs-tls");
        ca = TestCertificates.create(dir, "lfs");
        TestCertificates.Identity serverCert = ca.server();
        clientCert = ca.client("client");
        strangerCert = TestCertificates.create(dir, "stranger").client("stranger");
        workers = NettyTransport.newEventLoopGroup(1, "lfs-tls");
        blocking = java.util.concurrent.Executors.newCachedThreadPool();
        for (TlsProvider provider : BothTlsProviders.both().toList()) {
            HttpSettings settings = HttpSettings.defaults(new InetSocketAddress("127.0.0.1", 0))
                    .withTls(new TlsSettings(serverCert.chainFile(), serverCert.keyFile(), Optional.of(ca.caFile()), true,
                            provider));
            SERVERS.put(provider.sslProvider(), LfsHttpServer.start(settings, workers,
                    new LfsRouter(DocsRoutes.create(blocking), new ApiKeyCheck(""), () -> true)));
        }
    }

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(LfsHttpServer::close);
        blocking.shutdownNow();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static HttpResponse<String> get(TlsProvider provider, SSLContext context) throws Exception {
        LfsHttpServer server = SERVERS.get(provider.sslProvider());
        HttpClient client = HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1).build();
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.localAddress().getPort()
                + "/api/openapi.yaml")).build(), HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void clientWithATrustedCertificateIsServed(TlsProvider provider) throws Exception {
        assertEquals(200, get(provider, ca.clientContext(clientCert)).statusCode());
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void clientWithoutACertificateIsRefused(TlsProvider provider) {
        assertThrows(IOException.class, () -> get(provider, ca.clientContext(null)));
    }

    @ParameterizedTest
    @MethodSource(BOTH)
    void clientWithAnUntrustedCertificateIsRefused(TlsProvider provider) {
        assertThrows(IOException.class, () -> get(provider, ca.clientContext(strangerCert)));
    }

}
