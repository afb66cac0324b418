package org.kafscale.proxy.discovery.etcd;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * The lines this package logs during each test, DEBUG included (so a test can see where stack
 * traces go). Register as an instance field with {@code @RegisterExtension}.
 */
final class DiscoveryLogs implements BeforeEachCallback, AfterEachCallback {
    private final Logger logger = (Logger) LoggerFactory.getLogger(EtcdTopology.class.getPackageName());
    private ListAppender<ILoggingEvent> appender;
    private Level levelBefore;

    @Override
    public void beforeEach(ExtensionContext context) {
        appender = new ListAppender<>();
        appender.start();
        levelBefore = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        logger.addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
        logger.setLevel(levelBefore);
    }

    /** The events so far, oldest first (a copy: appenders add from other threads). */
    List<ILoggingEvent> events() {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    /** The events at {@code level} whose message contains {@code fragment}, oldest first. */
    List<ILoggingEvent> lines(Level level, String fragment) {
        return events().stream().filter(e -> e.getLevel() == level)
                .filter(e -> e.getFormattedMessage().contains(fragment)).toList();
    }

    /** The events matching {@code which}, oldest first. */
    List<ILoggingEvent> matching(Predicate<ILoggingEvent> which) {
        return events().stream().filter(which).toList();
    }
}
