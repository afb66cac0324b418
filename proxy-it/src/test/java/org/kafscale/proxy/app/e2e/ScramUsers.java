package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Users of the proxy's own SASL listener, each with the password {@code <user>-secret}: their
 * credentials file (KAFSCALE_PROXY_SASL_CREDENTIALS_FILE), a proxy's settings that place them in
 * virtual clusters, and a Java client's settings as one of them.
 */
final class ScramUsers {
    private ScramUsers() {
    }

    /** Writes the credentials file of {@code users} at {@code file}, SCRAM-SHA-512 (PLAIN checks against it too). */
    static Path credentialsFile(Path file, List<String> users) throws IOException, GeneralSecurityException {
        List<String> lines = new ArrayList<>();
        for (String user : users) {
            lines.add(user + " SCRAM-SHA-512 " + ScramCredentialUtils.credentialToString(
                    new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential(user + "-secret", 4096)));
        }
        return Files.write(file, lines);
    }

    /**
     * A proxy's settings for virtual clusters: SASL with {@code mechanisms} for {@code users}, and
     * the gateway file {@code gatewayYaml}; both files are written in {@code dir}.
     */
    static Map<String, String> gatewaySettings(Path dir, String mechanisms, List<String> users, String gatewayYaml)
            throws IOException, GeneralSecurityException {
        Path credentials = credentialsFile(dir.resolve("sasl-users"), users);
        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), gatewayYaml);
        return Map.of("KAFSCALE_PROXY_SASL_MECHANISMS", mechanisms,
                "KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", credentials.toString(),
                "KAFSCALE_PROXY_GATEWAY_FILE", gateway.toString());
    }

    /** A Java client's settings for {@code bootstrap}, authenticating as {@code user} with SCRAM-SHA-512. */
    static Properties client(String bootstrap, String user) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        props.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"" + user + "\" password=\"" + user + "-secret\";");
        return props;
    }
}
