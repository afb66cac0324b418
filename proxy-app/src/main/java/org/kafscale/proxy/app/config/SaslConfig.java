package org.kafscale.proxy.app.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.kafscale.proxy.core.security.sasl.CredentialsFile;
import org.kafscale.proxy.core.security.sasl.OAuthBearerSettings;
import org.kafscale.proxy.core.security.sasl.SaslMechanism;
import org.kafscale.proxy.core.security.sasl.SaslSettings;

/**
 * Reads the Kafka listener's SASL settings ({@code KAFSCALE_PROXY_SASL_*}) into a
 * {@link SaslSettings}, failing closed: an unknown mechanism, a mechanism without what it needs,
 * or a credentials file that does not parse stops start-up naming the setting. Unset
 * {@code KAFSCALE_PROXY_SASL_MECHANISMS}: no SASL, and any other SASL setting is an error (a
 * half-configured listener must not silently stay open).
 */
final class SaslConfig {
    private static final String MECHANISMS = ProxyConfig.SASL_MECHANISMS;
    private static final String CREDENTIALS_FILE = ProxyConfig.SASL_CREDENTIALS_FILE;
    private static final String JWKS_URL = ProxyConfig.SASL_OAUTHBEARER_JWKS_URL;

    private SaslConfig() {
    }

    static Optional<SaslSettings> from(Settings s) {
        List<String> names = s.list(MECHANISMS);
        if (names.isEmpty()) {
            for (ConfigKey key : ConfigKey.values()) {
                if (key != ConfigKey.SASL_MECHANISMS && key.name().startsWith("SASL_")
                        && s.string(key.envName()).isPresent()) {
                    throw new ConfigException(key.envName() + " is set but " + MECHANISMS
                            + " is not: the listener has no SASL without it");
                }
            }
            return Optional.empty();
        }
        List<SaslMechanism> mechanisms = new ArrayList<>();
        for (String name : names) {
            SaslMechanism mechanism = SaslMechanism.byKafkaName(name.strip().toUpperCase(Locale.ROOT))
                    .orElseThrow(() -> ConfigException.invalid(MECHANISMS, name,
                            "expected PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER"));
            if (!mechanisms.contains(mechanism)) {
                mechanisms.add(mechanism);
            }
        }
        Optional<Path> credentials = s.existingFile(CREDENTIALS_FILE);
        if (SaslSettings.needsCredentials(mechanisms)) {
            if (credentials.isEmpty()) {
                throw new ConfigException(CREDENTIALS_FILE + " is required with " + MECHANISMS + "=" + String.join(",",
                        names) + ": PLAIN and SCRAM check users against it");
            }
            try {
                CredentialsFile.read(credentials.get());
            } catch (RuntimeException e) {
                throw new ConfigException(CREDENTIALS_FILE + ": " + e.getMessage());
            }
        }
        Optional<OAuthBearerSettings> oauth = mechanisms.contains(SaslMechanism.OAUTHBEARER)
                ? Optional.of(oauthBearer(s)) : Optional.empty();
        Optional<Duration> maxReauth = s.string(ConfigKey.SASL_MAX_REAUTH_MS).isEmpty() ? Optional.empty()
                : Optional.of(Duration.ofMillis(s.longValue(ConfigKey.SASL_MAX_REAUTH_MS, 0)));
        return Optional.of(new SaslSettings(mechanisms, credentials, oauth, maxReauth,
                s.intValue(ConfigKey.SASL_MAX_CONCURRENT_AUTHENTICATIONS), s.intValue(ConfigKey.SASL_MAX_TOKEN_BYTES)));
    }

    private static OAuthBearerSettings oauthBearer(Settings s) {
        String url = s.string(ConfigKey.SASL_OAUTHBEARER_JWKS_URL).orElseThrow(() -> new ConfigException(JWKS_URL
                + " is required with OAUTHBEARER in " + MECHANISMS + ": tokens are checked against its keys"));
        URI jwks;
        try {
            jwks = new URI(url);
        } catch (URISyntaxException e) {
            throw ConfigException.invalid(JWKS_URL, url, "expected an https://, http:// or file: URL");
        }
        if (jwks.getScheme() == null
                || !List.of("https", "http", "file").contains(jwks.getScheme().toLowerCase(Locale.ROOT))) {
            throw ConfigException.invalid(JWKS_URL, url, "expected an https://, http:// or file: URL");
        }
        return new OAuthBearerSettings(jwks, s.string(ConfigKey.SASL_OAUTHBEARER_EXPECTED_ISSUER),
                s.list(ConfigKey.SASL_OAUTHBEARER_EXPECTED_AUDIENCE.envName()),
                s.intValue(ConfigKey.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS),
                s.stringOrDefault(ConfigKey.SASL_OAUTHBEARER_SCOPE_CLAIM_NAME),
                s.stringOrDefault(ConfigKey.SASL_OAUTHBEARER_SUB_CLAIM_NAME));
    }
}
