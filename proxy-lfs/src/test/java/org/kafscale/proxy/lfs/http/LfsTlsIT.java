package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.lfs.http.docs.DocsRoutes;
import org.kafscale.proxy.testkit.TestCertificates;

/** The LFS listener over HTTPS, verifying client certificates when a client CA is configured (mTLS). */
class LfsTlsIT {
    private static EventLoopGroup workers;
    private static LfsHttpServer server;
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
        HttpSettings settings = HttpSettings.defaults(new InetSocketAddress("127.0.0.1", 0))
                .withTls(new TlsSettings(serverCert.chainFile(), serverCert.keyFile(), Optional.of(ca.caFile()), true));
        server = LfsHttpServer.start(settings, workers, new LfsRouter(DocsRoutes.create(blocking), new ApiKeyCheck(""),
                () -> true));
    }

    @AfterAll
    static void stop() {
        server.close();
        blocking.shutdownNow();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static HttpResponse<String> get(SSLContext context) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1).build();
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.localAddress().getPort()
                + "/api/openapi.yaml")).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void clientWithATrustedCertificateIsServed() throws Exception {
        assertEquals(200, get(ca.clientContext(clientCert)).statusCode());
    }

    @Test
    void clientWithoutACertificateIsRefused() {
        assertThrows(IOException.class, () -> get(ca.clientContext(null)));
    }

    @Test
    void clientWithAnUntrustedCertificateIsRefused() {
        assertThrows(IOException.class, () -> get(ca.clientContext(strangerCert)));
    }

}
