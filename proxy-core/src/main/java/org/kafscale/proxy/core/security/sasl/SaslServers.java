package org.kafscale.proxy.core.security.sasl;

import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;

/**
 * Makes the kafka-clients SASL server for one exchange of an enabled mechanism: PLAIN and SCRAM
 * check the credentials file, OAUTHBEARER validates JWTs with Kafka's broker validator (JWKS
 * keys fetched and refreshed by it, in its own threads). Shared by every connection of the proxy.
 */
public final class SaslServers implements AutoCloseable {
    /** Kafka's JVM-wide allow list for the URLs its OAuth code may open (CVE-2025-27817). */
    static final String ALLOWED_URLS_PROPERTY = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    private final List<SaslMechanism> enabled;
    private final Optional<ReloadingCredentials> credentials;
    private final Optional<OAuthBearerValidatorCallbackHandler> tokenValidator;

    private SaslServers(List<SaslMechanism> enabled, Optional<ReloadingCredentials> credentials,
                        Optional<OAuthBearerValidatorCallbackHandler> tokenValidator) {
        this.enabled = enabled;
        this.credentials = credentials;
        this.tokenValidator = tokenValidator;
    }

    /**
     * Reads the credentials file and sets up token validation (which fetches the JWKS): blocks,
     * call at start-up, off any event loop.
     *
     * @throws IllegalArgumentException or {@link java.io.UncheckedIOException} for a bad credentials file
     */
    public static SaslServers start(SaslSettings settings) {
        Optional<ReloadingCredentials> credentials = SaslSettings.needsCredentials(settings.mechanisms())
                ? Optional.of(new ReloadingCredentials(settings.credentialsFile().orElseThrow()))
                : Optional.empty();
        Optional<OAuthBearerValidatorCallbackHandler> validator = settings.oauthBearer().map(SaslServers::validator);
        return new SaslServers(settings.mechanisms(), credentials, validator);
    }

    private static OAuthBearerValidatorCallbackHandler validator(OAuthBearerSettings settings) {
        allowUrl(settings.jwksUrl().toString());
        OAuthBearerValidatorCallbackHandler handler = new OAuthBearerValidatorCallbackHandler();
        AppConfigurationEntry loginModule = new AppConfigurationEntry(OAuthBearerLoginModule.class.getName(),
                AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, Map.of());
        handler.configure(settings.kafkaConfigs(), SaslMechanism.OAUTHBEARER.kafkaName(), List.of(loginModule));
        return handler;
    }

    /** Adds the configured JWKS URL to Kafka's allow list, keeping whatever the JVM was started with. */
    static synchronized void allowUrl(String url) {
        String current = System.getProperty(ALLOWED_URLS_PROPERTY, "").strip();
        if (List.of(current.split("\\s*,\\s*")).contains(url)) {
            return;
        }
        System.setProperty(ALLOWED_URLS_PROPERTY, current.isEmpty() ? url : current + "," + url);
    }

    /** The enabled mechanisms, in the order SaslHandshake lists them. */
    public List<SaslMechanism> enabled() {
        return enabled;
    }

    /** A fresh server for one exchange of an enabled mechanism. Cheap: no key derivation happens here. */
    SaslServer newServer(SaslMechanism mechanism) {
        if (!enabled.contains(mechanism)) {
            throw new IllegalArgumentException(mechanism.kafkaName() + " is not enabled");
        }
        return switch (mechanism) {
            case PLAIN -> new PlainSaslServer(new CredentialCallbacks(credentials.orElseThrow(), mechanism));
            case SCRAM_SHA_256, SCRAM_SHA_512 -> scram(mechanism);
            case OAUTHBEARER -> new OAuthBearerSaslServer(tokenValidator.orElseThrow());
        };
    }

    private SaslServer scram(SaslMechanism mechanism) {
        try {
            return new ScramSaslServer(mechanism.scram().orElseThrow(), Map.of(),
                    new CredentialCallbacks(credentials.orElseThrow(), mechanism));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(mechanism.kafkaName() + " is not available in this JVM", e);
        }
    }

    @Override
    public void close() {
        tokenValidator.ifPresent(OAuthBearerValidatorCallbackHandler::close);
    }

}
