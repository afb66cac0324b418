package org.kafscale.proxy.app.e2e;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.kafscale.proxy.testkit.Eventually;
import org.slf4j.LoggerFactory;

/**
 * The log lines written during each test, for tests that assert what the proxy says (a reason for
 * closing a connection, a dropped route). Register as an instance field with
 * {@code @RegisterExtension}.
 */
final class CapturedLogs implements BeforeEachCallback, AfterEachCallback {
    private ListAppender<ILoggingEvent> appender;

    @Override
    public void beforeEach(ExtensionContext context) {
        appender = new ListAppender<>();
        appender.start();
        root().addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        root().detachAppender(appender);
    }

    /** The events so far (a copy: appenders add from other threads). */
    List<ILoggingEvent> events() {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    /** Waits until a line containing {@code fragment} was logged, failing with the warnings so far. */
    void awaitLine(Duration deadline, String fragment) {
        Eventually.await(deadline, "a log line containing '" + fragment + "'",
                () -> events().stream().anyMatch(e -> e.getFormattedMessage().contains(fragment)));
    }

    /** WARN and ERROR lines so far, one a line, for failure messages. */
    String warnings() {
        return events().stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(e -> "  " + e.getLoggerName() + ": " + e.getFormattedMessage())
                .collect(Collectors.joining("\n"));
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }
}
