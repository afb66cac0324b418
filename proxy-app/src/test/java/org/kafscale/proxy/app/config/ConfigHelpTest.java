package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConfigHelpTest {

    @Test
    void helpListsEveryKeyWithItsDefault() {
        // When
        String help = ConfigHelp.text();
        // Then
        for (ConfigKey key : ConfigKey.values()) {
            String entry = "  " + key.envName() + "  (default: " + key.defaultText().replace("`", "") + ")\n";
            assertTrue(help.contains(entry), "help lacks " + entry.strip() + ":\n" + help);
        }
    }

    @Test
    void helpShowsUsageAndPrecedence() {
        String help = ConfigHelp.text();
        assertTrue(help.startsWith("Usage: java -jar kafscale-proxy.jar [run|help] [--config file.yaml] [--KEY=value ...]"),
                help);
        assertTrue(help.contains("the defaults below, the --config YAML file"), help);
    }

    @Test
    void helpShowsEachDescriptionWithoutMarkdown() {
        String help = ConfigHelp.text().replaceAll("\\s+", " ");
        for (ConfigKey key : ConfigKey.values()) {
            String description = key.description().replace("`", "").replaceAll("\\s+", " ");
            assertTrue(help.contains(description), "help lacks the description of " + key.envName());
        }
    }
}
