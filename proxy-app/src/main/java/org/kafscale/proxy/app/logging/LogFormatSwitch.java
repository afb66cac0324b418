package org.kafscale.proxy.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import org.kafscale.proxy.app.config.LogSettings;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link LogSettings} to the Logback configuration shipped in the jar (logback.xml): the
 * proxy's own loggers get the chosen level, and for JSON the {@value #PLAIN} console appender is
 * replaced by one writing a JSON object per line to the same stream. A Logback configuration the
 * operator supplies ({@code -Dlogback.configurationFile}) without that appender keeps its format.
 */
public final class LogFormatSwitch {
    static final String PLAIN = "PLAIN";
    static final String JSON = "JSON";
    private static final String PROXY_LOGGERS = "org.kafscale";

    private LogFormatSwitch() {
    }

    public static void apply(LogSettings settings) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        context.getLogger(PROXY_LOGGERS).setLevel(Level.toLevel(settings.level(), Level.INFO));
        if (settings.format() != LogSettings.Format.JSON) {
            return;
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (!(root.getAppender(PLAIN) instanceof ConsoleAppender<ILoggingEvent> plain)) {
            root.warn("The Logback configuration has no {} console appender; {} ignored", PLAIN, "json log format");
            return;
        }
        root.addAppender(jsonAppender(context, plain));
        root.detachAppender(plain);
        plain.stop();
    }

    private static OutputStreamAppender<ILoggingEvent> jsonAppender(LoggerContext context,
                                                                   ConsoleAppender<ILoggingEvent> replaced) {
        // The encoder escapes line breaks inside strings, so one event is one line whatever a client sent.
        // A line's key-values (the connection's id, client, client id, principal) become fields.
        JsonEncoder encoder = new FieldsJsonEncoder();
        encoder.setContext(context);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithFormattedMessage(true);
        encoder.start();
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setName(JSON);
        appender.setContext(context);
        appender.setTarget(replaced.getTarget());
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
