package org.kafscale.proxy.app.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.core.security.authz.AclRules;

class AclFileTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");

    private static AclRules parse(String text) {
        return AclFile.parse("acls.yaml", text.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String text) {
        return assertThrows(ConfigException.class, () -> parse(text)).getMessage();
    }

    @Test
    void readsYamlRulesInKafkasSpellings() {
        AclRules rules = parse("""
                acls:
                  - principal: User:alice
                    resourceType: TOPIC
                    patternType: PREFIXED
                    name: orders-
                    operation: Write
                    permission: ALLOW
                  - principal: User:alice
                    resourceType: TransactionalId
                    name: alice-tx
                    operation: WRITE
                    permission: Allow
                  - principal: User:alice
                    resourceType: CLUSTER
                    operation: DescribeConfigs
                    permission: ALLOW
                """);
        assertEquals(3, rules.rules().size());
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "orders-eu", AclOperation.WRITE));
        assertTrue(rules.allows(ALICE, ResourceType.TRANSACTIONAL_ID, "alice-tx", AclOperation.WRITE));
        assertFalse(rules.allows(ALICE, ResourceType.TRANSACTIONAL_ID, "alice-tx-2", AclOperation.WRITE),
                "LITERAL is the default pattern type");
        assertTrue(rules.allows(ALICE, ResourceType.CLUSTER, "kafka-cluster", AclOperation.DESCRIBE_CONFIGS));
    }

    @Test
    void readsJson() {
        AclRules rules = parse("""
                {"acls": [{"principal": "User:*", "resourceType": "GROUP", "name": "*", "operation": "Read",
                           "permission": "ALLOW"}]}
                """);
        assertTrue(rules.allows(ALICE, ResourceType.GROUP, "any", AclOperation.READ));
    }

    @Test
    void anEmptyListRefusesEverything() {
        assertEquals(0, parse("acls: []").rules().size());
    }

    @Test
    void aMisspeltOperationNamesTheSettingTheLineAndTheRule() {
        String message = error("""
                acls:
                  - principal: User:alice
                    resourceType: TOPIC
                    name: orders
                    operation: Write
                    permission: ALLOW
                  - principal: User:bob
                    resourceType: TOPIC
                    name: orders
                    operation: Reed
                    permission: ALLOW
                """);
        assertTrue(message.startsWith("KAFSCALE_PROXY_ACL_FILE (acls.yaml) is invalid at line"), message);
        assertTrue(message.contains("(rule 2)"), message);
        assertTrue(message.contains("operation 'Reed'"), message);
        int line = Integer.parseInt(message.replaceAll(".*at line (\\d+).*", "$1"));
        assertTrue(line >= 7 && line <= 12, "the line of bob's rule, not alice's: " + message);
    }

    @Test
    void everyBadFieldIsRefusedWithWhatIsWrong() {
        String rule = "acls:\n  - {principal: %s, resourceType: %s, patternType: %s, name: %s, operation: Read, "
                + "permission: %s}\n";
        assertTrue(error(rule.formatted("alice", "TOPIC", "LITERAL", "t", "ALLOW")).contains("User:name"));
        assertTrue(error(rule.formatted("User:alice", "BROKER", "LITERAL", "t", "ALLOW")).contains("resourceType"));
        assertTrue(error(rule.formatted("User:alice", "TOPIC", "MATCH", "t", "ALLOW")).contains("patternType"));
        assertTrue(error(rule.formatted("User:alice", "TOPIC", "LITERAL", "t", "MAYBE")).contains("permission"));
        assertTrue(error(rule.formatted("User:alice", "CLUSTER", "LITERAL", "other", "ALLOW")).contains("kafka-cluster"));
        assertTrue(error("acls:\n  - {principal: User:alice, resourceType: TOPIC, operation: Read, permission: ALLOW}\n")
                .contains("`name` is missing"));
        assertTrue(error("acls:\n  - {principal: User:alice, resourceType: TOPIC, name: t, operation: Read, "
                + "permission: ALLOW, host: kafka.example.com}\n").contains("host"), "a host is an IP address");
        assertTrue(error("acls:\n  - {principal: User:alice, resourceType: TOPIC, name: t, operation: Read, "
                + "permission: ALLOW, hosts: 10.0.0.1}\n").contains("hosts"), "unknown fields are refused");
    }

    @Test
    void aHostLimitsTheRuleToClientsFromThatAddress() throws Exception {
        // Given a rule for one IPv6 address, written short
        AclRules rules = parse("acls:\n  - {principal: User:alice, resourceType: TOPIC, name: t, operation: Read, "
                + "permission: ALLOW, host: \"2001:db8::7\"}\n");

        // Then it matches that client, and no other
        assertTrue(rules.allows(ALICE, InetAddress.getByName("2001:db8::7"), ResourceType.TOPIC, "t", AclOperation.READ));
        assertFalse(rules.allows(ALICE, InetAddress.getByName("2001:db8::8"), ResourceType.TOPIC, "t", AclOperation.READ));
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.READ));
    }

    @Test
    void aFileWithoutAclsOrThatIsNotYamlIsRefused() {
        assertTrue(error("rules: []").contains("rules"));
        assertTrue(error("").contains("`acls`"));
        assertTrue(error("acls: [").contains("is invalid"));
    }
}
