package org.kafscale.proxy.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.joran.spi.JoranException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

/** A line's key-values are {@code key="value"} in the shipped plain format and fields in the JSON one. */
class LogFormatsTest {
    private final LoggerContext context = new LoggerContext();

    LogFormatsTest() {
        // A context of its own, so the test configures no logger other tests use.
        context.setMDCAdapter(new LogbackMDCAdapter());
    }
    private final Logger logger = context.getLogger("org.kafscale.proxy.core.server.ClientConnectionHandler");

    @Test
    void plainFormatEndsALineWithItsKeyValues() throws JoranException {
        String line = plain(event("Closing connection from client /127.0.0.1:50000: too slow",
                new KeyValuePair("conn", "c1f"), new KeyValuePair("client", "/127.0.0.1:50000"),
                new KeyValuePair("client_id", "orders\nforged"), new KeyValuePair("principal", "User:alice")));

        assertTrue(line.endsWith(" - Closing connection from client /127.0.0.1:50000: too slow conn=\"c1f\" "
                + "client=\"/127.0.0.1:50000\" client_id=\"orders forged\" principal=\"User:alice\"\n"), line);
        assertEquals(1, line.lines().count(), "a client id cannot break the line: " + line);
    }

    @Test
    void plainLineWithoutKeyValuesEndsWithItsMessage() throws JoranException {
        String line = plain(event("Kafka listener bound to /0.0.0.0:9092"));

        assertTrue(line.endsWith(" - Kafka listener bound to /0.0.0.0:9092\n"), line);
    }

    @Test
    void jsonFormatGivesEachKeyValueItsOwnField() throws IOException {
        FieldsJsonEncoder encoder = new FieldsJsonEncoder();
        encoder.setContext(context);
        encoder.start();

        JsonNode line = new ObjectMapper().readTree(encoder.encode(event("Refused Produce v9",
                new KeyValuePair("conn", "c1f"), new KeyValuePair("client_id", "say \"hi\""),
                new KeyValuePair("principal", "User:alice"))));

        assertEquals("c1f", line.get("conn").asText());
        assertEquals("say \"hi\"", line.get("client_id").asText());
        assertEquals("User:alice", line.get("principal").asText());
        assertFalse(line.has("kvpList"), line.toString());
    }

    private ILoggingEvent event(String message, KeyValuePair... pairs) {
        LoggingEvent event = new LoggingEvent(Logger.FQCN, logger, Level.WARN, message, null, null);
        for (KeyValuePair pair : pairs) {
            event.addKeyValuePair(pair);
        }
        return event;
    }

    /** The line the shipped logback.xml's {@value LogFormatSwitch#PLAIN} appender writes for {@code event}. */
    @SuppressWarnings("unchecked")
    private String plain(ILoggingEvent event) throws JoranException {
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LogFormatsTest.class.getResource("/logback.xml"));
        OutputStreamAppender<ILoggingEvent> appender = (OutputStreamAppender<ILoggingEvent>)
                context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender(LogFormatSwitch.PLAIN);
        return new String(appender.getEncoder().encode(event), StandardCharsets.UTF_8);
    }
}
