package org.kafscale.proxy.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;

/**
 * Reads typed values from raw settings (environment variable names as keys). Every parse error
 * names the key, the value and what is allowed; nothing falls back silently.
 */
final class Settings {
    private static final Set<String> TRUE = Set.of("1", "true", "yes", "y", "on");
    private static final Set<String> FALSE = Set.of("0", "false", "no", "n", "off");

    private final Map<String, String> raw;

    Settings(Map<String, String> raw) {
        this.raw = raw;
    }

    /** The trimmed value, empty when unset or blank. */
    Optional<String> string(String key) {
        String value = raw.get(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    String string(String key, String defaultValue) {
        return string(key).orElse(defaultValue);
    }

    Optional<String> string(ConfigKey key) {
        return string(key.envName());
    }

    /** The value, else the key's default. */
    String stringOrDefault(ConfigKey key) {
        return string(key).orElseGet(() -> key.defaultValue().orElseThrow(() ->
                new IllegalStateException(key.envName() + " has no fixed default")));
    }

    /** One of the allowed words (any case), returned as spelled in {@code allowed}; else the key's default. */
    String oneOf(ConfigKey key, List<String> allowed) {
        String value = stringOrDefault(key);
        return allowed.stream().filter(a -> a.equalsIgnoreCase(value)).findFirst().orElseThrow(() ->
                ConfigException.invalid(key.envName(), value, "expected one of " + String.join(", ", allowed)));
    }

    /** A PROXY protocol mode: off, optional or required. */
    ProxyProtocolMode proxyProtocol(ConfigKey key) {
        return ProxyProtocolMode.valueOf(oneOf(key, List.of("off", "optional", "required")).toUpperCase(Locale.ROOT));
    }

    /** A whole number within the key's range, else the key's default. */
    long longValue(ConfigKey key) {
        return longValue(key, Long.parseLong(key.defaultValue().orElseThrow(() ->
                new IllegalStateException(key.envName() + " has no fixed default"))));
    }

    /** A whole number within the key's range, else the given default (for keys whose default is derived). */
    long longValue(ConfigKey key, long defaultValue) {
        ConfigKey.Range range = key.range().orElseThrow(() ->
                new IllegalStateException(key.envName() + " is not a whole-number setting"));
        return longValue(key.envName(), defaultValue, range.min(), range.max());
    }

    int intValue(ConfigKey key) {
        return Math.toIntExact(longValue(key));
    }

    int intValue(ConfigKey key, int defaultValue) {
        return Math.toIntExact(longValue(key, defaultValue));
    }

    long longValue(String key, long defaultValue, long min, long max) {
        Optional<String> value = string(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.get());
        } catch (NumberFormatException e) {
            throw ConfigException.invalid(key, value.get(), "expected a whole number from " + min + " to " + max);
        }
        if (parsed < min || parsed > max) {
            throw ConfigException.invalid(key, value.get(), "expected a whole number from " + min + " to " + max);
        }
        return parsed;
    }

    int intValue(String key, int defaultValue, int min, int max) {
        return (int) longValue(key, defaultValue, min, max);
    }

    boolean bool(String key, boolean defaultValue) {
        Optional<String> value = string(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        String v = value.get().toLowerCase(Locale.ROOT);
        if (TRUE.contains(v)) {
            return true;
        }
        if (FALSE.contains(v)) {
            return false;
        }
        throw ConfigException.invalid(key, value.get(), "expected true or false (also 1/0, yes/no, on/off)");
    }

    /** A path to a readable file, when set. */
    Optional<java.nio.file.Path> existingFile(String key) {
        return string(key).map(v -> {
            java.nio.file.Path path = java.nio.file.Path.of(v);
            if (!java.nio.file.Files.isReadable(path)) {
                throw ConfigException.invalid(key, v, "expected a readable file");
            }
            return path;
        });
    }

    /** A comma-separated list; items trimmed, empty items dropped. */
    List<String> list(String key) {
        List<String> items = new ArrayList<>();
        string(key).ifPresent(v -> {
            for (String item : v.split(",")) {
                if (!item.isBlank()) {
                    items.add(item.trim());
                }
            }
        });
        return items;
    }

    /** A "host:port" or ":port" address; a missing host means every interface. */
    HostPort hostPort(ConfigKey key) {
        return hostPort(key.envName(), stringOrDefault(key));
    }

    HostPort hostPort(String key, String defaultValue) {
        String value = string(key, defaultValue);
        return HostPort.parse(value).orElseThrow(() ->
                ConfigException.invalid(key, value, "expected host:port or :port with a port from 1 to 65535"));
    }

    List<HostPort> hostPorts(String key) {
        List<HostPort> addresses = new ArrayList<>();
        for (String item : list(key)) {
            HostPort address = HostPort.parse(item).filter(a -> !a.host().isEmpty()).orElseThrow(() ->
                    ConfigException.invalid(key, item, "expected a comma-separated list of host:port"));
            addresses.add(address);
        }
        return addresses;
    }
}
