package org.kafscale.proxy.app.config;

/**
 * A setting is missing or has a value the proxy cannot use; start-up stops with this message.
 * The message is always one line, so it can be printed after "Configuration error: " as is.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message.strip().replaceAll("\\s*\\R\\s*", " "));
    }

    static ConfigException invalid(String key, String value, String allowed) {
        return new ConfigException(key + "=" + value + " is invalid: " + allowed);
    }
}
