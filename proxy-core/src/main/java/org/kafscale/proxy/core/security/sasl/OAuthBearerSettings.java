package org.kafscale.proxy.core.security.sasl;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator;

/**
 * How OAUTHBEARER tokens are validated: signed by a key of the JWKS endpoint, from the expected
 * issuer, for the expected audience, not expired (give or take the clock skew). The names follow
 * Kafka's broker settings ({@code sasl.oauthbearer.*}), which {@link #kafkaConfigs} produces for
 * kafka-clients' validator.
 *
 * @param jwksUrl where the signing keys are published (http, https or file)
 * @param expectedIssuer the {@code iss} a token must carry, if set
 * @param expectedAudience the {@code aud} values of which a token must carry one; empty: any
 * @param clockSkewSeconds tolerance on {@code exp}, {@code nbf} and {@code iat}
 * @param scopeClaimName the claim holding the token's scopes
 * @param subClaimName the claim holding the principal's name
 */
public record OAuthBearerSettings(URI jwksUrl, Optional<String> expectedIssuer, List<String> expectedAudience,
                                  int clockSkewSeconds, String scopeClaimName, String subClaimName) {
    public static final String DEFAULT_SCOPE_CLAIM = SaslConfigs.DEFAULT_SASL_OAUTHBEARER_SCOPE_CLAIM_NAME;
    public static final String DEFAULT_SUB_CLAIM = SaslConfigs.DEFAULT_SASL_OAUTHBEARER_SUB_CLAIM_NAME;
    public static final int DEFAULT_CLOCK_SKEW_SECONDS = SaslConfigs.DEFAULT_SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS;

    public OAuthBearerSettings {
        expectedAudience = List.copyOf(expectedAudience);
    }

    /**
     * The broker-side {@code sasl.oauthbearer.*} settings kafka-clients' validator reads, parsed by
     * Kafka's own definitions (so every setting not named here has Kafka's default), with the
     * validator that checks signatures against the JWKS.
     */
    public Map<String, Object> kafkaConfigs() {
        Map<String, String> raw = new HashMap<>();
        raw.put(SaslConfigs.SASL_OAUTHBEARER_JWT_VALIDATOR_CLASS, BrokerJwtValidator.class.getName());
        raw.put(SaslConfigs.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL, jwksUrl.toString());
        raw.put(SaslConfigs.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS, String.valueOf(clockSkewSeconds));
        raw.put(SaslConfigs.SASL_OAUTHBEARER_SCOPE_CLAIM_NAME, scopeClaimName);
        raw.put(SaslConfigs.SASL_OAUTHBEARER_SUB_CLAIM_NAME, subClaimName);
        if (!expectedAudience.isEmpty()) {
            raw.put(SaslConfigs.SASL_OAUTHBEARER_EXPECTED_AUDIENCE, String.join(",", expectedAudience));
        }
        expectedIssuer.ifPresent(issuer -> raw.put(SaslConfigs.SASL_OAUTHBEARER_EXPECTED_ISSUER, issuer));
        ConfigDef definitions = new ConfigDef();
        SaslConfigs.addClientSaslSupport(definitions);
        return new HashMap<>(definitions.parse(raw));
    }
}
