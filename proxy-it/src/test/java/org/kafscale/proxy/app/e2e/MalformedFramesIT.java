package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * Bad bytes from one client close that client's connection with a log line saying why; the
 * proxy and its other clients carry on.
 */
class MalformedFramesIT {
    private static final int MAX_FRAME_BYTES = 1024 * 1024;
    private static final Duration CLOSE_DEADLINE = Duration.ofSeconds(20);

    private static KafkaCluster cluster;
    private static RunningProxy proxy;
    private static Admin healthyClient;
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        cluster.createTopic("still-works", 1);
        proxy = RunningProxy.start(cluster, "brokers", Map.of(ProxyConfig.MAX_FRAME_BYTES, String.valueOf(MAX_FRAME_BYTES)));
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        healthyClient = Admin.create(props);
    }

    @AfterAll
    static void stop() {
        healthyClient.close();
        proxy.close();
        cluster.close();
    }

    @Test
    void oversizedFrameIsRefusedFromItsSizeAloneAndOthersKeepWorking() throws Exception {
        try (Socket socket = connect()) {
            // When: only the size arrives, claiming one byte more than allowed
            sendInt(socket, MAX_FRAME_BYTES + 1);
            // Then
            assertClosedByProxy(socket);
            logs.awaitLine(Duration.ofSeconds(10), "exceeds the maximum of " + MAX_FRAME_BYTES);
        }
        assertOtherClientsStillServed();
    }

    @Test
    void negativeFrameSizeClosesTheConnection() throws Exception {
        try (Socket socket = connect()) {
            sendInt(socket, -7);
            assertClosedByProxy(socket);
            logs.awaitLine(Duration.ofSeconds(10), "frame size -7 is negative");
        }
        assertOtherClientsStillServed();
    }

    @Test
    void truncatedRequestHeaderClosesTheConnection() throws Exception {
        try (Socket socket = connect()) {
            // When: a complete frame of three bytes, too short for any request header
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(3);
            out.write(new byte[] {0, 3, 0});
            out.flush();
            // Then
            assertClosedByProxy(socket);
            logs.awaitLine(Duration.ofSeconds(10), "request header does not parse");
        }
        assertOtherClientsStillServed();
    }

    @Test
    void unknownApiKeyIsRefusedAndItsConnectionClosedWithTheKeyInTheLogLine() throws Exception {
        try (Socket socket = connect()) {
            // When: a well-formed header with an API key no Kafka version defines
            byte[] clientId = "raw".getBytes(StandardCharsets.UTF_8);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(2 + 2 + 4 + 2 + clientId.length + 4);
            out.writeShort(32000);
            out.writeShort(0);
            out.writeInt(42);
            out.writeShort(clientId.length);
            out.write(clientId);
            out.writeInt(0xCAFE);
            out.flush();
            // Then: the proxy does not advertise it, so it refuses it (never forwarded): the connection closes
            assertClosedByProxy(socket);
            logs.awaitLine(Duration.ofSeconds(10), "key 32000");
        }
        assertOtherClientsStillServed();
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", proxy.port());
        socket.setSoTimeout((int) CLOSE_DEADLINE.toMillis());
        return socket;
    }

    private static void sendInt(Socket socket, int value) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(value);
        out.flush();
    }

    /** The proxy closed the connection: a read sees end of stream, not data and not a timeout. */
    private static void assertClosedByProxy(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            assertEquals(-1, in.read(), "the proxy sends nothing and closes");
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the proxy did not close the connection within " + CLOSE_DEADLINE, e);
        } catch (IOException reset) {
            // A reset is also a close by the proxy.
        }
    }


    private static void assertOtherClientsStillServed() throws Exception {
        assertTrue(healthyClient.listTopics().names().get().contains("still-works"));
    }
}
