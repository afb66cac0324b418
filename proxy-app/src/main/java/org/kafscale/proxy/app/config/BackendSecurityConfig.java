package org.kafscale.proxy.app.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.kafscale.proxy.core.backend.security.BackendSaslSettings;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.core.backend.security.BackendTls;
import org.kafscale.proxy.core.backend.security.BackendTlsSettings;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code KAFSCALE_PROXY_BACKEND_TLS_*} and {@code KAFSCALE_PROXY_BACKEND_SASL_*} into
 * {@link BackendSecurity}, failing closed: a TLS or SASL detail set without the setting that turns
 * it on, a file that cannot be read or does not hold a certificate or key, an unknown mechanism
 * or missing credentials each stop start-up naming the setting.
 */
final class BackendSecurityConfig {
    private static final Logger LOGGER = LoggerFactory.getLogger(BackendSecurityConfig.class);
    private static final List<ConfigKey> TLS_DETAILS = List.of(ConfigKey.BACKEND_TLS_CA_FILE,
            ConfigKey.BACKEND_TLS_CERT_FILE, ConfigKey.BACKEND_TLS_KEY_FILE,
            ConfigKey.BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY, ConfigKey.BACKEND_TLS_RELOAD_INTERVAL_MS);
    private static final List<ConfigKey> SASL_DETAILS = List.of(ConfigKey.BACKEND_SASL_USERNAME,
            ConfigKey.BACKEND_SASL_PASSWORD, ConfigKey.BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL,
            ConfigKey.BACKEND_SASL_OAUTH_CLIENT_ID, ConfigKey.BACKEND_SASL_OAUTH_CLIENT_SECRET,
            ConfigKey.BACKEND_SASL_OAUTH_SCOPE);

    private BackendSecurityConfig() {
    }

    static BackendSecurity from(Settings s, TlsProvider provider) {
        Optional<BackendTlsSettings> tls = tls(s, provider);
        Optional<BackendSaslSettings> sasl = sasl(s);
        if (sasl.isPresent() && tls.isEmpty() && !sasl.get().isOAuthBearer()
                && sasl.get().mechanism().equals("PLAIN")) {
            LOGGER.warn("{}=PLAIN without {}: the proxy's password crosses the network in the clear",
                    ConfigKey.BACKEND_SASL_MECHANISM.envName(), ConfigKey.BACKEND_TLS_ENABLED.envName());
        }
        return new BackendSecurity(tls, sasl);
    }

    private static Optional<BackendTlsSettings> tls(Settings s, TlsProvider provider) {
        if (!s.bool(ConfigKey.BACKEND_TLS_ENABLED.envName(), false)) {
            requireUnset(s, TLS_DETAILS, ConfigKey.BACKEND_TLS_ENABLED.envName() + "=true");
            return Optional.empty();
        }
        Path ca = file(s, ConfigKey.BACKEND_TLS_CA_FILE).orElse(null);
        Path cert = file(s, ConfigKey.BACKEND_TLS_CERT_FILE).orElse(null);
        Path key = file(s, ConfigKey.BACKEND_TLS_KEY_FILE).orElse(null);
        if ((cert == null) != (key == null)) {
            throw new ConfigException(ConfigKey.BACKEND_TLS_CERT_FILE.envName() + " and "
                    + ConfigKey.BACKEND_TLS_KEY_FILE.envName() + " must be set together");
        }
        boolean skipHostname = s.bool(ConfigKey.BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY.envName(), false);
        if (skipHostname) {
            LOGGER.warn("{}=true: broker certificates are not checked against the broker's host name",
                    ConfigKey.BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY.envName());
        }
        BackendTlsSettings settings = new BackendTlsSettings(ca, cert, key, !skipHostname,
                Duration.ofMillis(s.longValue(ConfigKey.BACKEND_TLS_RELOAD_INTERVAL_MS)), provider);
        try {
            BackendTls.create(settings, Duration.ofSeconds(1));
        } catch (SSLException | RuntimeException e) {
            throw new ConfigException("the backend TLS files (" + named(settings) + ") cannot be used: "
                    + e.getMessage());
        }
        return Optional.of(settings);
    }

    private static String named(BackendTlsSettings settings) {
        StringBuilder names = new StringBuilder();
        if (settings.caFile() != null) {
            names.append(ConfigKey.BACKEND_TLS_CA_FILE.envName()).append('=').append(settings.caFile());
        }
        if (settings.certFile() != null) {
            names.append(names.isEmpty() ? "" : ", ").append(ConfigKey.BACKEND_TLS_CERT_FILE.envName()).append('=')
                    .append(settings.certFile()).append(", ").append(ConfigKey.BACKEND_TLS_KEY_FILE.envName())
                    .append('=').append(settings.keyFile());
        }
        return names.isEmpty() ? "the JVM's trusted CAs" : names.toString();
    }

    private static Optional<BackendSaslSettings> sasl(Settings s) {
        Optional<String> mechanism = s.string(ConfigKey.BACKEND_SASL_MECHANISM).map(m -> m.toUpperCase(Locale.ROOT));
        if (mechanism.isEmpty()) {
            requireUnset(s, SASL_DETAILS, ConfigKey.BACKEND_SASL_MECHANISM.envName());
            return Optional.empty();
        }
        String name = mechanism.get();
        if (!BackendSaslSettings.MECHANISMS.contains(name)) {
            throw ConfigException.invalid(ConfigKey.BACKEND_SASL_MECHANISM.envName(), name,
                    "expected PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER");
        }
        if (name.equals("OAUTHBEARER")) {
            requireUnset(s, List.of(ConfigKey.BACKEND_SASL_USERNAME, ConfigKey.BACKEND_SASL_PASSWORD),
                    ConfigKey.BACKEND_SASL_MECHANISM.envName() + "=PLAIN or SCRAM-*");
            String url = required(s, ConfigKey.BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL, name);
            URI endpoint;
            try {
                endpoint = new URI(url);
            } catch (URISyntaxException e) {
                throw ConfigException.invalid(ConfigKey.BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL.envName(), url,
                        "expected an http(s) URL");
            }
            if (endpoint.getScheme() == null || !endpoint.getScheme().matches("(?i)https?")) {
                throw ConfigException.invalid(ConfigKey.BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL.envName(), url,
                        "expected an http(s) URL");
            }
            return Optional.of(new BackendSaslSettings(name, null, null, new BackendSaslSettings.OAuthClientCredentials(
                    endpoint, required(s, ConfigKey.BACKEND_SASL_OAUTH_CLIENT_ID, name),
                    required(s, ConfigKey.BACKEND_SASL_OAUTH_CLIENT_SECRET, name),
                    s.string(ConfigKey.BACKEND_SASL_OAUTH_SCOPE).orElse(null))));
        }
        requireUnset(s, SASL_DETAILS.subList(2, SASL_DETAILS.size()), ConfigKey.BACKEND_SASL_MECHANISM.envName() + "=OAUTHBEARER");
        return Optional.of(BackendSaslSettings.password(name, required(s, ConfigKey.BACKEND_SASL_USERNAME, name),
                required(s, ConfigKey.BACKEND_SASL_PASSWORD, name)));
    }

    private static String required(Settings s, ConfigKey key, String mechanism) {
        return s.string(key).orElseThrow(() -> new ConfigException(key.envName() + " is required with "
                + ConfigKey.BACKEND_SASL_MECHANISM.envName() + "=" + mechanism));
    }

    /** A detail set without what turns it on would look secured and be ignored: refused. */
    private static void requireUnset(Settings s, List<ConfigKey> details, String needed) {
        for (ConfigKey key : details) {
            if (s.string(key).isPresent()) {
                throw new ConfigException(key.envName() + " is set but takes effect only with " + needed
                        + "; set that too, or remove " + key.envName());
            }
        }
    }

    /** A readable regular file, when set; anything else stops start-up naming the setting. */
    private static Optional<Path> file(Settings s, ConfigKey key) {
        return s.string(key).map(value -> {
            Path path = Path.of(value);
            if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
                throw ConfigException.invalid(key.envName(), value, "expected a readable file");
            }
            return path;
        });
    }
}
