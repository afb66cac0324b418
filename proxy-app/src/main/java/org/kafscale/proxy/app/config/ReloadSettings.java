package org.kafscale.proxy.app.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How a running proxy is reconfigured: how often its files are looked at, and the admin API's
 * token ({@code POST /admin/reload}, {@code GET /admin/config}); without one the API is off.
 * Read at start only.
 */
public record ReloadSettings(Duration watchInterval, Optional<String> adminToken) {

    /** The defaults: files looked at every 2 s, no admin API. */
    public static final ReloadSettings DEFAULT = new ReloadSettings(Duration.ofSeconds(2), Optional.empty());

    /** @throws ConfigException naming the setting when a value is invalid */
    public static ReloadSettings from(Map<String, String> raw) {
        Settings s = new Settings(raw);
        return new ReloadSettings(Duration.ofMillis(s.longValue(ConfigKey.CONFIG_WATCH_MS)),
                s.string(ConfigKey.ADMIN_TOKEN));
    }
}
