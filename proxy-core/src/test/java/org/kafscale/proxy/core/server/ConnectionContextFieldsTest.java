package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.kafscale.proxy.core.testing.LogLines.fields;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.LoggerFactory;

/**
 * The fields a connection's lines carry follow what the proxy learns about the client (its
 * client id, its principal), and a rate-limited line carries the fields of its own connection.
 */
class ConnectionContextFieldsTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ConnectionContextFieldsTest.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    ConnectionContextFieldsTest() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void stop() {
        logger.detachAppender(lines);
        channel.finishAndReleaseAll();
    }

    @Test
    void fieldsFollowTheClientIdAndThePrincipalTheConnectionLearns() {
        ConnectionContext connection = connection(50000);
        RateLimitedLog refusals = new RateLimitedLog(logger, 1, TimeUnit.HOURS);

        connection.clientIdSeen("orders-app");
        connection.clientIdSeen("");
        connection.authenticatedAs(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"));
        refusals.warn(connection, "Refused {}", "Produce");

        assertEquals(Map.of(ConnectionContext.CONN, connection.id(), ConnectionContext.CLIENT, "/127.0.0.1:50000",
                ConnectionContext.CLIENT_ID, "orders-app", ConnectionContext.PRINCIPAL, "User:alice"),
                fields(lines.list.get(0)));
        assertEquals("Refused Produce", lines.list.get(0).getFormattedMessage());
    }

    @Test
    void eachConnectionHasItsOwnIdAndALineHeldBackCarriesNone() {
        ConnectionContext first = connection(50001);
        ConnectionContext second = connection(50002);
        RateLimitedLog closes = new RateLimitedLog(logger, 1, TimeUnit.HOURS);

        closes.warn(first, "Closing {}", "first");
        closes.warn(second, "Closing {}", "second");

        assertNotEquals(first.id(), second.id());
        assertEquals(1, lines.list.size(), "the second line is held back");
        assertEquals(first.id(), fields(lines.list.get(0)).get(ConnectionContext.CONN));
        assertEquals(Map.of(ConnectionContext.CONN, second.id(), ConnectionContext.CLIENT, "/127.0.0.1:50002",
                ConnectionContext.PRINCIPAL, "User:ANONYMOUS"), fieldsOf(second));
    }

    private ConnectionContext connection(int port) {
        return new ConnectionContext(channel.eventLoop(), null, new InetSocketAddress("127.0.0.1", port));
    }

    /** The fields {@code connection} adds to a line, read from a line logged with them. */
    private Map<String, Object> fieldsOf(ConnectionContext connection) {
        connection.atInfo(logger).log("probe");
        return fields(lines.list.get(lines.list.size() - 1));
    }
}
