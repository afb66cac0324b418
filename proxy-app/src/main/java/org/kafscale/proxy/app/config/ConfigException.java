package org.kafscale.proxy.app.config;

/** A setting is missing or has a value the proxy cannot use; start-up stops with this message. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    static ConfigException invalid(String key, String value, String allowed) {
        return new ConfigException(key + "=" + value + " is invalid: " + allowed);
    }
}
