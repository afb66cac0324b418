package org.kafscale.proxy.app.config;

import java.util.List;

/**
 * How the proxy logs.
 *
 * @param format one line of text, or one JSON object, per event
 * @param level the level of the proxy's own loggers
 */
public record LogSettings(Format format, String level) {
    /** The levels Logback knows, as the setting spells them. */
    static final List<String> LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");

    /** The line format. */
    public enum Format {
        PLAIN,
        JSON
    }
}
