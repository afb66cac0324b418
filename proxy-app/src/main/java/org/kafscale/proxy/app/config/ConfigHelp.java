package org.kafscale.proxy.app.config;

import java.util.ArrayList;
import java.util.List;

/** The {@code --help} text: usage, the sources of settings, and every setting with its default. */
public final class ConfigHelp {
    private static final int WIDTH = 100;
    private static final String INDENT = "      ";

    private ConfigHelp() {
    }

    public static String text() {
        StringBuilder text = new StringBuilder("""
                Usage: java -jar kafscale-proxy.jar [run|help] [--config file.yaml] [--KEY=value ...]
                  run   serve Kafka clients (the default)
                  help  print this text (also --help or -h)
                       java -jar kafscale-proxy.jar scram-credential --user USER --mechanism SCRAM-SHA-512 [--iterations N]
                  reads a password from stdin and prints its line for KAFSCALE_PROXY_SASL_CREDENTIALS_FILE

                Settings, from lowest to highest precedence: the defaults below, the --config YAML file
                (a flat map of KEY: value), KAFSCALE_* environment variables, and --KEY=value or --KEY value
                flags. A blank value counts as unset. See docs/configuration.md.

                """);
        for (ConfigKey key : ConfigKey.values()) {
            text.append("  ").append(key.envName()).append("  (default: ").append(plain(key.defaultText())).append(")\n");
            for (String line : wrap(plain(key.description()), WIDTH - INDENT.length())) {
                text.append(INDENT).append(line).append('\n');
            }
        }
        return text.toString().stripTrailing();
    }

    private static String plain(String markdown) {
        return markdown.replace("`", "");
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
