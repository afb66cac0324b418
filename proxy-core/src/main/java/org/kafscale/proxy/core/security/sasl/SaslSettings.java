package org.kafscale.proxy.core.security.sasl;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * SASL on the Kafka listener: which mechanisms a client may use, where the users' credentials
 * are, how tokens are validated, and the limits that keep authentication from costing the
 * proxy more than a client can be made to pay.
 *
 * @param mechanisms the enabled mechanisms, in the order SaslHandshake lists them; never empty
 * @param credentialsFile the users for PLAIN and SCRAM (required when one of them is enabled)
 * @param oauthBearer token validation (required when OAUTHBEARER is enabled)
 * @param maxReauth Kafka's {@code connections.max.reauth.ms}: a session lasts at most this long
 *     before the client must re-authenticate (KIP-368); empty: sessions last as long as the connection
 * @param maxConcurrentAuthentications SASL steps evaluated at once across the listener; a
 *     client past it fails authentication instead of queueing behind others
 * @param maxTokenBytes the largest SaslAuthenticate token accepted
 */
public record SaslSettings(List<SaslMechanism> mechanisms, Optional<Path> credentialsFile,
                           Optional<OAuthBearerSettings> oauthBearer, Optional<Duration> maxReauth,
                           int maxConcurrentAuthentications, int maxTokenBytes) {
    public static final int DEFAULT_MAX_CONCURRENT_AUTHENTICATIONS = 64;
    /** Room for a large JWT with many claims; PLAIN and SCRAM messages are far smaller. */
    public static final int DEFAULT_MAX_TOKEN_BYTES = 64 * 1024;

    public SaslSettings {
        mechanisms = List.copyOf(mechanisms);
        if (mechanisms.isEmpty()) {
            throw new IllegalArgumentException("no SASL mechanism enabled");
        }
        if (needsCredentials(mechanisms) && credentialsFile.isEmpty()) {
            throw new IllegalArgumentException("PLAIN and SCRAM need a credentials file");
        }
        if (mechanisms.contains(SaslMechanism.OAUTHBEARER) && oauthBearer.isEmpty()) {
            throw new IllegalArgumentException("OAUTHBEARER needs a JWKS endpoint");
        }
    }

    /** The same mechanisms and limits, checking users against {@code file} (a virtual cluster's own listener's). */
    public SaslSettings withCredentialsFile(Path file) {
        return new SaslSettings(mechanisms, Optional.of(file), oauthBearer, maxReauth, maxConcurrentAuthentications,
                maxTokenBytes);
    }

    /** Whether a mechanism that checks users against the credentials file is enabled. */
    public static boolean needsCredentials(List<SaslMechanism> mechanisms) {
        return mechanisms.stream().anyMatch(m -> m != SaslMechanism.OAUTHBEARER);
    }
}
