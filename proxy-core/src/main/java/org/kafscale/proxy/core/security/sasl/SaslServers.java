package org.kafscale.proxy.core.security.sasl;

import java.net.SocketAddress;
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
 * With a {@link ProbeLogin}, the proxy's own readiness probe may also log in, from its own
 * connections only.
 */
public final class SaslServers implements AutoCloseable {
    /** Kafka's JVM-wide allow list for the URLs its OAuth code may open (CVE-2025-27817). */
    static final String ALLOWED_URLS_PROPERTY = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    private final List<SaslMechanism> enabled;
    private final Optional<ReloadingCredentials> credentials;
    private final Optional<OAuthBearerValidatorCallbackHandler> tokenValidator;
    private final Optional<ProbeLogin> probe;

    private SaslServers(List<SaslMechanism> enabled, Optional<ReloadingCredentials> credentials,
                        Optional<OAuthBearerValidatorCallbackHandler> tokenValidator, Optional<ProbeLogin> probe) {
        this.enabled = enabled;
        this.credentials = credentials;
        this.tokenValidator = tokenValidator;
        this.probe = probe;
    }

    /**
     * Reads the credentials file and sets up token validation (which fetches the JWKS): blocks,
     * call at start-up, off any event loop.
     *
     * @throws IllegalArgumentException or {@link java.io.UncheckedIOException} for a bad credentials file
     */
    public static SaslServers start(SaslSettings settings) {
        return start(settings, Optional.empty());
    }

    /** As {@link #start(SaslSettings)}, also admitting the readiness probe's {@code probe} login. */
    public static SaslServers start(SaslSettings settings, Optional<ProbeLogin> probe) {
        Optional<ReloadingCredentials> credentials = SaslSettings.needsCredentials(settings.mechanisms())
                ? Optional.of(new ReloadingCredentials(settings.credentialsFile().orElseThrow()))
                : Optional.empty();
        Optional<OAuthBearerValidatorCallbackHandler> validator = settings.oauthBearer().map(SaslServers::validator);
        return new SaslServers(settings.mechanisms(), credentials, validator, probe);
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

    /**
     * Whether a client connected from {@code client} may start an exchange of {@code mechanism}:
     * an enabled one, or the probe's on the proxy's own connections.
     */
    boolean accepts(SaslMechanism mechanism, SocketAddress client) {
        return enabled.contains(mechanism) || probe.filter(p -> p.admits(mechanism, client)).isPresent();
    }

    /**
     * A fresh server for one exchange of a mechanism {@link #accepts accepted} from {@code client}.
     * Cheap: no key derivation happens here.
     */
    SaslServer newServer(SaslMechanism mechanism, SocketAddress client) {
        if (!accepts(mechanism, client)) {
            throw new IllegalArgumentException(mechanism.kafkaName() + " is not enabled");
        }
        return switch (mechanism) {
            case PLAIN -> new PlainSaslServer(callbacks(mechanism, client));
            case SCRAM_SHA_256, SCRAM_SHA_512 -> scram(mechanism, client);
            case OAUTHBEARER -> new OAuthBearerSaslServer(tokenValidator.orElseThrow());
        };
    }

    private CredentialCallbacks callbacks(SaslMechanism mechanism, SocketAddress client) {
        // The file answers only for the mechanisms it is enabled for; the probe for its own.
        return new CredentialCallbacks(credentials.filter(c -> enabled.contains(mechanism)), mechanism, probe, client);
    }

    private SaslServer scram(SaslMechanism mechanism, SocketAddress client) {
        try {
            return new ScramSaslServer(mechanism.scram().orElseThrow(), Map.of(), callbacks(mechanism, client));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(mechanism.kafkaName() + " is not available in this JVM", e);
        }
    }

    @Override
    public void close() {
        tokenValidator.ifPresent(OAuthBearerValidatorCallbackHandler::close);
    }

}
