package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.Eventually;
import org.slf4j.LoggerFactory;

/** One malformed request is one log line, never a stack trace above DEBUG (security review L3). */
class MalformedRequestLogTest {
    private static final short PRODUCE_V3 = 3;

    private final RoutingHarness proxy = new RoutingHarness();
    private final Logger proxyLogger = (Logger) LoggerFactory.getLogger("org.kafscale.proxy");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        proxy.broker(1);
        lines.start();
        proxyLogger.addAppender(lines);
    }

    @AfterEach
    void stop() throws IOException {
        proxyLogger.detachAppender(lines);
        proxy.close();
    }

    @Test
    void produceWhoseBodyDoesNotParseIsClosedWithOneLineAndNoStackTrace() throws IOException {
        // Given a Produce v3 whose header is sound and whose body names a 5-byte transactional id
        // but ends after 1 byte
        try (Socket client = new Socket("127.0.0.1", proxy.port())) {
            client.setSoTimeout((int) RawKafkaConnection.READ_DEADLINE.toMillis());
            // When it is sent
            writeFrame(client, PRODUCE_V3, new byte[] {0, 5, 'x'});
            // Then the proxy closes the connection ...
            assertTrue(closed(client), "the connection is closed");
        }
        // ... and says so in one WARN line without a stack trace, and nothing else above DEBUG
        Eventually.await(RawKafkaConnection.READ_DEADLINE, "the close to be logged",
                () -> !events(Level.WARN).isEmpty());
        List<ILoggingEvent> warnings = events(Level.WARN);
        assertEquals(1, warnings.size(), "lines at WARN or above: " + warnings);
        ILoggingEvent line = warnings.get(0);
        assertTrue(line.getFormattedMessage().contains("body does not parse"), line.getFormattedMessage());
        assertEquals(1, line.getFormattedMessage().lines().count(), "one line: " + line.getFormattedMessage());
        assertNull(line.getThrowableProxy(), "no stack trace at WARN");
    }

    /** The events at {@code level} or above, from any proxy logger. */
    private List<ILoggingEvent> events(Level level) {
        synchronized (lines) {
            return lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(level)).toList();
        }
    }

    /** A v1 request header (api key, version, correlation id 1, client id) and {@code body}. */
    private static void writeFrame(Socket client, short version, byte[] body) throws IOException {
        byte[] clientId = "raw-test".getBytes(StandardCharsets.UTF_8);
        DataOutputStream out = new DataOutputStream(client.getOutputStream());
        out.writeInt(2 + 2 + 4 + 2 + clientId.length + body.length);
        out.writeShort(ApiKeys.PRODUCE.id);
        out.writeShort(version);
        out.writeInt(1);
        out.writeShort(clientId.length);
        out.write(clientId);
        out.write(body);
        out.flush();
    }

    private static boolean closed(Socket client) throws IOException {
        try {
            return new DataInputStream(client.getInputStream()).read() == -1;
        } catch (EOFException | SocketException reset) {
            return true;
        }
    }
}
