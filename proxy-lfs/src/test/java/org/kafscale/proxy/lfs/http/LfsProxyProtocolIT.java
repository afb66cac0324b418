package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.lfs.http.docs.DocsRoutes;

/** The LFS listener requiring PROXY protocol headers, over real sockets (its listener reads with auto-read off). */
class LfsProxyProtocolIT {
    private static final String REQUEST = "GET /api/openapi.yaml HTTP/1.1\r\nHost: lfs\r\nConnection: close\r\n\r\n";
    private static final Duration READ_DEADLINE = Duration.ofSeconds(20);

    private static EventLoopGroup workers;
    private static ExecutorService blocking;
    private static LfsHttpServer server;
    private static final AtomicInteger refused = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        workers = NettyTransport.newEventLoopGroup(1, "lfs-proxy-protocol");
        blocking = Executors.newCachedThreadPool();
        HttpSettings settings = HttpSettings.defaults(new InetSocketAddress("127.0.0.1", 0))
                .withProxyProtocol(ProxyProtocolMode.REQUIRED);
        server = LfsHttpServer.start(settings, workers, new LfsRouter(DocsRoutes.create(blocking), new ApiKeyCheck(""),
                () -> true), refused::incrementAndGet);
    }

    @AfterAll
    static void stop() {
        server.close();
        blocking.shutdownNow();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void requestAfterAHeaderIsServed() throws Exception {
        // When a v1 header and a request arrive in one write
        String answer = exchange("PROXY TCP4 203.0.113.7 192.0.2.1 51000 8080\r\n" + REQUEST);

        // Then the request is answered
        assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
    }

    @Test
    void requestWithoutAHeaderIsClosedUnansweredAndCounted() throws Exception {
        // Given
        int before = refused.get();

        // When a request arrives without a header
        String answer = exchange(REQUEST);

        // Then the connection is closed without an answer, and counted
        assertEquals("", answer);
        assertEquals(before + 1, refused.get());
    }

    /** Writes {@code bytes} and reads until the server closes the connection. */
    private static String exchange(String bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.localAddress().getPort())) {
            socket.setSoTimeout((int) READ_DEADLINE.toMillis());
            socket.getOutputStream().write(bytes.getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) != -1) {
                read.write(buffer, 0, n);
            }
            return read.toString(StandardCharsets.US_ASCII);
        }
    }
}
