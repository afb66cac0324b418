package org.kafscale.proxy.deploy.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.kafscale.proxy.app.health.HealthServer;
import org.kafscale.proxy.app.health.Readiness;
import org.kafscale.proxy.deploy.RepoPaths;

/** docker/healthcheck.sh (the image's HEALTHCHECK) against the proxy's real health listener. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HealthcheckScriptTest {
    private final AtomicBoolean ready = new AtomicBoolean();
    private HealthServer server;

    @BeforeAll
    void startHealthListener() throws InterruptedException {
        server = HealthServer.start(new InetSocketAddress("127.0.0.1", 0),
                () -> new Readiness.Status(ready.get(), "set by the test"), families -> "");
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void healthyWhileTheProxyIsReady() throws Exception {
        ready.set(true);
        assertEquals(0, healthcheck(":" + server.localAddress().getPort()).exitCode());
    }

    @Test
    void unhealthyWhileTheProxyCannotRoute() throws Exception {
        ready.set(false);
        Result result = healthcheck(":" + server.localAddress().getPort());
        assertEquals(1, result.exitCode());
        assertTrue(result.output().contains("503"), result.output());
    }

    @Test
    void unhealthyWhenNothingListens() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        assertEquals(1, healthcheck("127.0.0.1:" + closedPort).exitCode());
    }

    private record Result(int exitCode, String output) {
    }

    private static Result healthcheck(String healthAddress) throws Exception {
        ProcessBuilder script = new ProcessBuilder(RepoPaths.root().resolve("docker/healthcheck.sh").toString())
                .redirectErrorStream(true);
        script.environment().put("KAFSCALE_PROXY_HEALTH_ADDR", healthAddress);
        Process process = script.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "healthcheck.sh did not finish");
        return new Result(process.exitValue(), output);
    }
}
