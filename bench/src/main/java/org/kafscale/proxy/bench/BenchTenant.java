package org.kafscale.proxy.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The one tenant of the virtual-cluster comparison: a SASL user in the proxy's credentials file,
 * and a gateway file that places that user's principal in one virtual cluster whose topics carry
 * {@code topicPrefix} in the real cluster. Both proxies of the comparison authenticate this user
 * the same way; only one is given the gateway file, so the difference between them is the
 * virtual cluster's work (placing the client, rewriting names both ways) and nothing else.
 */
record BenchTenant(String user, String password, String virtualCluster, String topicPrefix) {
    static final String MECHANISM = "SCRAM-SHA-512";
    /**
     * Kafka's minimum. A client logs in once per connection, and the workloads' clients connect
     * before their clocks start, so the key derivation is never in a measured second.
     */
    private static final int ITERATIONS = 4096;

    /** The bench's tenant, with a password made up for this run. */
    static BenchTenant forThisRun() {
        return new BenchTenant("bench", UUID.randomUUID().toString(), "bench-tenant", "bench-tenant.");
    }

    /** The user's line of {@code KAFSCALE_PROXY_SASL_CREDENTIALS_FILE}: salted keys, as {@code scram-credential} prints it. */
    String credentialsLine() {
        try {
            return user + " " + MECHANISM + " " + ScramCredentialUtils.credentialToString(
                    new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential(password, ITERATIONS));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(MECHANISM + " is not available in this JVM", e);
        }
    }

    /** {@code KAFSCALE_PROXY_GATEWAY_FILE}'s text: one virtual cluster holding the user. */
    String gatewayYaml() {
        return "virtualClusters:\n"
                + "  - name: " + virtualCluster + "\n"
                + "    principals: [\"User:" + user + "\"]\n"
                + "    topicPrefix: \"" + topicPrefix + "\"\n";
    }

    /** The proxy's settings: SASL on its listener with the credentials file; the gateway file when given. */
    Map<String, String> proxySettings(Path credentialsFile, Optional<Path> gatewayFile) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("KAFSCALE_PROXY_SASL_MECHANISMS", MECHANISM);
        settings.put("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", credentialsFile.toAbsolutePath().toString());
        gatewayFile.ifPresent(file -> settings.put("KAFSCALE_PROXY_GATEWAY_FILE", file.toAbsolutePath().toString()));
        return settings;
    }

    /** What a Kafka client sets to log in as the user. */
    Map<String, Object> clientSettings() {
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", MECHANISM, "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";");
    }

    /** The real cluster's name of a topic the tenant's clients call {@code clientTopic}. */
    String realTopic(String clientTopic) {
        return topicPrefix + clientTopic;
    }
}
