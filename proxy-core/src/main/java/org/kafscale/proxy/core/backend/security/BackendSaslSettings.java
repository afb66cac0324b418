package org.kafscale.proxy.core.backend.security;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The proxy's own SASL identity towards the brokers. The proxy always authenticates as itself:
 * a client's SCRAM exchange cannot be replayed to the several brokers one connection fans out to.
 *
 * @param mechanism PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER
 * @param username user name (PLAIN, SCRAM); {@code null} for OAUTHBEARER
 * @param password password (PLAIN, SCRAM); {@code null} for OAUTHBEARER
 * @param oauth client-credentials grant that yields the OAUTHBEARER token; {@code null} otherwise
 */
public record BackendSaslSettings(String mechanism, String username, String password, OAuthClientCredentials oauth) {
    /** The mechanisms the proxy can speak to brokers. */
    public static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

    public BackendSaslSettings {
        mechanism = Objects.requireNonNull(mechanism, "mechanism").toUpperCase(Locale.ROOT);
        if (!MECHANISMS.contains(mechanism)) {
            throw new IllegalArgumentException("unknown SASL mechanism " + mechanism + "; known: " + MECHANISMS);
        }
        boolean bearer = "OAUTHBEARER".equals(mechanism);
        if (bearer ? oauth == null : username == null || password == null) {
            throw new IllegalArgumentException(bearer
                    ? "OAUTHBEARER needs a token endpoint and client credentials"
                    : mechanism + " needs a user name and a password");
        }
    }

    /** PLAIN or SCRAM-* as {@code username}. */
    public static BackendSaslSettings password(String mechanism, String username, String password) {
        return new BackendSaslSettings(mechanism, username, password, null);
    }

    public boolean isOAuthBearer() {
        return "OAUTHBEARER".equals(mechanism);
    }

    /** Never the password: settings end up in logs. */
    @Override
    public String toString() {
        return mechanism + (isOAuthBearer() ? " (client " + oauth.clientId() + ")" : " as " + username);
    }

    /**
     * An OAuth 2 client-credentials grant (RFC 6749 §4.4), as kafka-clients' login callback handler
     * performs it.
     *
     * @param tokenEndpoint where tokens are asked for
     * @param clientId the proxy's client id
     * @param clientSecret its secret
     * @param scope the scope asked for; {@code null} for none
     */
    public record OAuthClientCredentials(URI tokenEndpoint, String clientId, String clientSecret, String scope) {
        public OAuthClientCredentials {
            Objects.requireNonNull(tokenEndpoint, "tokenEndpoint");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientSecret, "clientSecret");
        }

        @Override
        public String toString() {
            return "client " + clientId + " at " + tokenEndpoint;
        }
    }
}
