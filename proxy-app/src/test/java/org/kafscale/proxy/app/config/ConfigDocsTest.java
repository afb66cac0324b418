package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md carries the table rendered from {@link ConfigKey}, exactly. To regenerate
 * it after changing a key: {@code ./mvnw -B -o -q -pl proxy-app test -Dtest=ConfigDocsTest -Dconfig.docs.write=true}.
 */
class ConfigDocsTest {
    private static final String WRITE_PROPERTY = "config.docs.write";

    @Test
    void configurationDocCarriesTheGeneratedTable() throws IOException {
        // Given
        Path doc = repositoryRoot().resolve("docs/configuration.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        // When
        if (Boolean.getBoolean(WRITE_PROPERTY)) {
            text = ConfigDocs.withCurrentTable(text);
            Files.writeString(doc, text, StandardCharsets.UTF_8);
        }
        // Then
        assertTrue(text.contains(ConfigDocs.table()), doc + " does not match the settings in ConfigKey. Regenerate it with:"
                + " ./mvnw -B -o -q -pl proxy-app test -Dtest=ConfigDocsTest -D" + WRITE_PROPERTY + "=true");
    }

    @Test
    void tableHasOneRowPerKey() {
        String table = ConfigDocs.table();
        for (ConfigKey key : ConfigKey.values()) {
            assertTrue(table.contains("\n| `" + key.envName() + "` | " + key.defaultText() + " | "), key.envName());
        }
        assertTrue(table.lines().count() == ConfigKey.values().length + 4, table);
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (with mvnw and docs/) above " + Path.of("").toAbsolutePath());
    }
}
