package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Authentication audit events on a virtual cluster's own listener: dave, a user of team c's own
 * credentials file and in no virtual cluster's principals, logs in on team c's listener, and each
 * of his logins (the one that fails too) is recorded under team c, the virtual cluster he reached.
 */
class TenantAuditIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @TempDir
    static Path dir;
    private static RunningProxy proxy;
    private static Path auditFile;
    private static String teamC;

    @BeforeAll
    static void start() throws Exception {
        ScramUsers.credentialsFile(dir.resolve("team-c-users"), List.of("dave"));
        int port = FreePorts.next();
        teamC = "127.0.0.1:" + port;
        auditFile = dir.resolve("audit.jsonl");
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice"), """
                audit:
                  file: %s
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "a."
                  - name: team-c
                    listener: "%s"
                    credentialsFile: team-c-users
                    topicPrefix: "c."
                """.formatted(auditFile, teamC)));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void loginsOnAVirtualClustersOwnListenerAreRecordedUnderIt() throws Exception {
        // When dave logs in on team c's listener, once with his password and once with a wrong one
        try (Admin dave = Admin.create(ScramUsers.client(teamC, "dave"))) {
            dave.listTopics().names().get(30, TimeUnit.SECONDS);
        }
        Properties wrong = ScramUsers.client(teamC, "dave");
        wrong.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"dave\" password=\"not-his\";");
        try (Admin impostor = Admin.create(wrong)) {
            assertThrows(ExecutionException.class, () -> impostor.listTopics().names().get(30, TimeUnit.SECONDS));
        }

        // Then both authentication events name team c
        for (String outcome : List.of("succeeded", "failed")) {
            Eventually.await(DEADLINE, "dave's " + outcome + " login recorded under team-c", () -> events().stream()
                    .anyMatch(e -> "authentication".equals(text(e, "type")) && "User:dave".equals(text(e, "principal"))
                            && outcome.equals(text(e, "outcome")) && "team-c".equals(text(e, "virtualCluster"))));
        }
    }

    private static List<JsonNode> events() {
        try {
            if (!Files.exists(auditFile)) {
                return List.of();
            }
            return Files.readAllLines(auditFile).stream().filter(line -> !line.isBlank()).map(line -> {
                try {
                    return JSON.readTree(line);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(JsonNode event, String field) {
        return event.path(field).asText("");
    }
}
