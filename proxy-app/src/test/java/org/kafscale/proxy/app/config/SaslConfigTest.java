package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.sasl.ScramCredentialCommand;
import org.kafscale.proxy.core.security.sasl.SaslMechanism;
import org.kafscale.proxy.core.security.sasl.SaslSettings;

/** The listener's SASL settings: read into {@link SaslSettings}, and every half-set or bad one stops start-up. */
class SaslConfigTest {
    @TempDir
    Path dir;

    private static Map<String, String> settings(String... keysAndValues) {
        Map<String, String> settings = new HashMap<>();
        settings.put("KAFSCALE_PROXY_BACKENDS", "broker-0:9092");
        for (int i = 0; i < keysAndValues.length; i += 2) {
            settings.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return settings;
    }

    private static String failure(Map<String, String> settings) {
        return assertThrows(ConfigException.class, () -> ProxyConfig.from(settings)).getMessage();
    }

    private Path credentialsFile() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = ScramCredentialCommand.run(new String[] {"--user", "alice", "--mechanism", "SCRAM-SHA-512"},
                new ByteArrayInputStream("secret\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, exit);
        try {
            return Files.writeString(dir.resolve("users"), out.toString(StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void withoutMechanismsTheListenerHasNoSasl() {
        assertEquals(Optional.empty(), ProxyConfig.from(settings()).sasl());
    }

    @Test
    void mechanismsCredentialsAndSessionLimitAreRead() {
        // Given
        Path users = credentialsFile();

        // When
        SaslSettings sasl = ProxyConfig.from(settings("KAFSCALE_PROXY_SASL_MECHANISMS", "scram-sha-512, PLAIN",
                "KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", users.toString(),
                "KAFSCALE_PROXY_SASL_MAX_REAUTH_MS", "60000")).sasl().orElseThrow();

        // Then
        assertEquals(List.of(SaslMechanism.SCRAM_SHA_512, SaslMechanism.PLAIN), sasl.mechanisms());
        assertEquals(Optional.of(users), sasl.credentialsFile());
        assertEquals(Optional.of(Duration.ofMinutes(1)), sasl.maxReauth());
    }

    @Test
    void anUnknownMechanismIsRefusedListingTheKnownOnes() {
        assertEquals("KAFSCALE_PROXY_SASL_MECHANISMS=GSSAPI is invalid: expected PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 "
                + "or OAUTHBEARER", failure(settings("KAFSCALE_PROXY_SASL_MECHANISMS", "GSSAPI")));
    }

    @Test
    void scramWithoutACredentialsFileIsRefused() {
        assertTrue(failure(settings("KAFSCALE_PROXY_SASL_MECHANISMS", "SCRAM-SHA-256"))
                .startsWith("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE is required"));
    }

    @Test
    void aCredentialsFileThatDoesNotParseIsRefusedNamingTheSettingAndLine() throws Exception {
        Path users = Files.writeString(dir.resolve("users"), "alice SCRAM-SHA-512 hunter2\n");
        String message = failure(settings("KAFSCALE_PROXY_SASL_MECHANISMS", "PLAIN",
                "KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", users.toString()));
        assertTrue(message.startsWith("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE: " + users + " line 1: not a SCRAM "
                + "credential"), message);
    }

    @Test
    void oauthBearerWithoutAJwksUrlIsRefused() {
        assertTrue(failure(settings("KAFSCALE_PROXY_SASL_MECHANISMS", "OAUTHBEARER"))
                .startsWith("KAFSCALE_PROXY_SASL_OAUTHBEARER_JWKS_URL is required"));
    }

    @Test
    void aSaslSettingWithoutMechanismsIsRefusedRatherThanLeavingTheListenerOpen() {
        assertEquals("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE is set but KAFSCALE_PROXY_SASL_MECHANISMS is not: the "
                        + "listener has no SASL without it",
                failure(settings("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", "/etc/kafscale/users")));
    }
}
