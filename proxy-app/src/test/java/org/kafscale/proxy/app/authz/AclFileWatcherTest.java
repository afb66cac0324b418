package org.kafscale.proxy.app.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.core.security.authz.AclSettings;
import org.slf4j.LoggerFactory;

class AclFileWatcherTest {
    private static final String ONE_RULE = "acls:\n  - {principal: User:a, resourceType: TOPIC, name: t, "
            + "operation: Read, permission: ALLOW}\n";
    private static final String TWO_RULES = ONE_RULE
            + "  - {principal: User:b, resourceType: TOPIC, name: t, operation: Read, permission: ALLOW}\n";

    @TempDir
    Path dir;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void captureLogs() {
        logs.start();
        ((Logger) LoggerFactory.getLogger(AclFileWatcher.class)).addAppender(logs);
    }

    @AfterEach
    void stopCapturing() {
        ((Logger) LoggerFactory.getLogger(AclFileWatcher.class)).detachAppender(logs);
    }

    private AclSettings settings(String text) throws Exception {
        return new AclSettings(Files.writeString(dir.resolve("acls.yaml"), text), Duration.ofSeconds(1));
    }

    private long notApplied() {
        return logs.list.stream().filter(e -> e.getFormattedMessage().contains("not applied")).count();
    }

    @Test
    void aBadFileAtStartStopsStartUpNamingTheSetting() throws Exception {
        AclSettings settings = settings("acls:\n  - {principal: User:a}\n");
        ConfigException e = assertThrows(ConfigException.class, () -> AclFileWatcher.load(settings));
        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_ACL_FILE"), e.getMessage());
    }

    @Test
    void aChangedFileReplacesEveryRule() throws Exception {
        AclSettings settings = settings(ONE_RULE);
        AclFileWatcher watcher = AclFileWatcher.load(settings);
        Files.writeString(settings.file(), TWO_RULES);
        watcher.check();
        assertEquals(2, watcher.authorizer().rules().rules().size());
    }

    @Test
    void aBadReloadKeepsTheRulesInForceAndIsLoggedOnceUntilTheFileChanges() throws Exception {
        // Given
        AclSettings settings = settings(ONE_RULE);
        AclFileWatcher watcher = AclFileWatcher.load(settings);
        // When: a broken file is looked at three times
        Files.writeString(settings.file(), "acls: [");
        watcher.check();
        watcher.check();
        watcher.check();
        // Then
        assertEquals(1, watcher.authorizer().rules().rules().size());
        assertEquals(1, notApplied());
        // When: a file that cannot be read, then a good one
        Files.delete(settings.file());
        watcher.check();
        watcher.check();
        assertEquals(2, notApplied(), "the missing file is a new problem, logged once");
        Files.writeString(settings.file(), TWO_RULES);
        watcher.check();
        assertEquals(2, watcher.authorizer().rules().rules().size());
    }
}
