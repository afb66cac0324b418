package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.testing.LogLines.fields;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.testkit.Eventually;
import org.slf4j.LoggerFactory;

/**
 * An operator follows one connection through the log by its id: every line about a fanned-out
 * request whose part failed at one broker, and about the connection's end, carries the same
 * connection id, client address, client id and principal as key-values. Debug lines too: nothing
 * else happens in the proxy meanwhile, so every line captured is about that connection.
 */
class ConnectionLogFieldsTest {
    private static final long PRODUCER_ID = 77;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();
    private final Logger proxyLogger = (Logger) LoggerFactory.getLogger("org.kafscale.proxy");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Level levelBefore = proxyLogger.getLevel();

    @AfterEach
    void stop() throws IOException {
        proxyLogger.detachAppender(lines);
        proxyLogger.setLevel(levelBefore);
        proxy.close();
    }

    @Test
    void everyLineAboutAFailingFannedOutRequestCarriesTheSameConnectionId() throws IOException {
        // Given orders-0 on broker 1, which stores it, and orders-1 on broker 2, which closes the
        // connection the request came on instead of answering
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 2);
        broker1.on(ApiKeys.PRODUCE, request -> answer(Produces.answer(request.data(ProduceRequestData.class),
                p -> Produces.stored(0))));
        broker2.on(ApiKeys.PRODUCE, request -> ScriptedBroker.Response.close());
        int port = proxy.port();
        lines.start();
        proxyLogger.addAppender(lines);
        proxyLogger.setLevel(Level.DEBUG);

        // When a client with id orders-app sends one idempotent Produce to both partitions (one
        // attempt per part: the failed part is not resent), then disconnects
        ProduceResponseData answer;
        try (RawKafkaConnection client = new RawKafkaConnection(port, "orders-app")) {
            answer = client.send(Produces.request(topology, (short) -1, Map.of(
                    "orders-0", TestRecords.idempotent(PRODUCER_ID, "a"),
                    "orders-1", TestRecords.idempotent(PRODUCER_ID, "b"))), Produces.VERSION);
        }

        // Then the client got broker 1's answer and an error for broker 2's part ...
        assertEquals(Errors.NONE.code(), Produces.results(topology, answer).get("orders-0").errorCode());
        assertTrue(Produces.results(topology, answer).get("orders-1").errorCode() != Errors.NONE.code());
        // ... the log says the part failed and the connection closed ...
        Eventually.await(RawKafkaConnection.READ_DEADLINE, "the part failure and the close to be logged",
                () -> captured().stream().anyMatch(e -> e.getFormattedMessage().startsWith("Connection closed")));
        List<ILoggingEvent> logged = captured();
        assertTrue(logged.stream().anyMatch(e -> e.getLevel() == Level.WARN
                && e.getFormattedMessage().startsWith("Produce part for 1 partitions failed at")), "lines: " + logged);
        // ... and every line carries one connection's fields
        Map<String, Object> first = fields(logged.get(0));
        assertTrue(String.valueOf(first.get(ConnectionContext.CONN)).matches("c[0-9a-z]+"), "id: " + first);
        assertTrue(String.valueOf(first.get(ConnectionContext.CLIENT)).startsWith("/127.0.0.1:"), "client: " + first);
        assertEquals("orders-app", first.get(ConnectionContext.CLIENT_ID));
        assertEquals("User:ANONYMOUS", first.get(ConnectionContext.PRINCIPAL));
        for (ILoggingEvent line : logged) {
            assertEquals(first, fields(line), "fields of: " + line.getFormattedMessage());
        }
    }

    /** The lines at any level, from any proxy logger, since the client connected. */
    private List<ILoggingEvent> captured() {
        synchronized (lines) {
            return List.copyOf(lines.list);
        }
    }
}
