package org.kafscale.proxy.app.authz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.security.authz.AclRules;

/** A virtual cluster's own ACL file, beside the gateway file, in the tenant's names. */
class AclFilesTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");

    @TempDir
    Path dir;
    private final Map<String, String> env = new HashMap<>();

    @BeforeEach
    void settings() throws Exception {
        Path users = Files.writeString(dir.resolve("users"), "alice SCRAM-SHA-512 " + ScramCredentialUtils
                .credentialToString(new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential("s", 4096))
                + "\n");
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put("KAFSCALE_PROXY_SASL_MECHANISMS", "PLAIN");
        env.put("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", users.toString());
        env.put(ProxyConfig.GATEWAY_FILE, Files.writeString(dir.resolve("gateway.yaml"), """
                virtualClusters:
                  - name: team-a
                    principals: [User:alice]
                    topicPrefix: "a."
                    aclFile: team-a-acls.yaml
                  - name: team-b
                    principals: [User:bob]
                    topicPrefix: "b."
                """).toString());
    }

    @Test
    void aTenantsRulesNameItsOwnTopicsAndOthersAreNotChecked() throws Exception {
        // The file is found beside the gateway file, as a config map mounts both
        Files.writeString(dir.resolve("team-a-acls.yaml"), """
                acls:
                  - {principal: "User:alice", resourceType: TOPIC, name: orders, operation: Write, permission: ALLOW}
                """);

        AclFiles files = AclFiles.load(ProxyConfig.from(env));

        AclRules alice = files.inForce().orElseThrow().rulesFor(ALICE, Optional.of("team-a")).orElseThrow();
        assertTrue(alice.allows(ALICE, ResourceType.TOPIC, "a.orders", AclOperation.WRITE));
        assertFalse(alice.allows(ALICE, ResourceType.TOPIC, "b.orders", AclOperation.WRITE));
        // bob's virtual cluster has no ACL file, nor the proxy: bob is not checked
        assertTrue(files.inForce().orElseThrow().rulesFor(BOB, Optional.of("team-b")).isEmpty());
    }

    @Test
    void aRuleForSomeoneOutsideTheVirtualClusterStopsStartUpNamingThePath() throws Exception {
        Files.writeString(dir.resolve("team-a-acls.yaml"), """
                acls:
                  - {principal: "User:bob", resourceType: TOPIC, name: orders, operation: Read, permission: ALLOW}
                """);

        ConfigException e = assertThrows(ConfigException.class, () -> AclFiles.load(ProxyConfig.from(env)));

        assertTrue(e.getMessage().startsWith("KAFSCALE_PROXY_GATEWAY_FILE virtualClusters[0].aclFile ("), e.getMessage());
        assertTrue(e.getMessage().endsWith("rule 1 is for User:bob, who is not in virtual cluster 'team-a'"),
                e.getMessage());
    }

    @Test
    void aMissingOrMalformedFileStopsStartUpNamingThePath() throws Exception {
        ConfigException missing = assertThrows(ConfigException.class, () -> AclFiles.load(ProxyConfig.from(env)));
        assertTrue(missing.getMessage().startsWith("KAFSCALE_PROXY_GATEWAY_FILE virtualClusters[0].aclFile ("),
                missing.getMessage());
        assertTrue(missing.getMessage().contains("cannot be read"), missing.getMessage());

        Files.writeString(dir.resolve("team-a-acls.yaml"), "acls:\n  - {principal: User:alice, operation: Fly}\n");
        ConfigException malformed = assertThrows(ConfigException.class, () -> AclFiles.load(ProxyConfig.from(env)));
        assertTrue(malformed.getMessage().startsWith("KAFSCALE_PROXY_GATEWAY_FILE virtualClusters[0].aclFile ("),
                malformed.getMessage());
    }

    @Test
    void withoutAnyAclFileNothingIsChecked() {
        env.remove(ProxyConfig.GATEWAY_FILE);

        assertTrue(AclFiles.load(ProxyConfig.from(env)).inForce().isEmpty());
    }
}
