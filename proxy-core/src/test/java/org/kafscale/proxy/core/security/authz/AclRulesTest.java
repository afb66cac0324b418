package org.kafscale.proxy.core.security.authz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class AclRulesTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob");

    private static AclBinding rule(String principal, ResourceType type, PatternType pattern, String name,
                                   AclOperation operation, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, permission));
    }

    private static AclBinding allow(String principal, ResourceType type, PatternType pattern, String name,
                                    AclOperation operation) {
        return rule(principal, type, pattern, name, operation, AclPermissionType.ALLOW);
    }

    @Test
    void withNoRuleEverythingIsRefused() {
        assertFalse(AclRules.NONE.allows(ALICE, ResourceType.TOPIC, "orders", AclOperation.READ));
    }

    @Test
    void aLiteralRuleMatchesOnlyItsOwnName() {
        // Given
        AclRules rules = new AclRules(List.of(allow("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "orders",
                AclOperation.READ)));
        // Then
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "orders", AclOperation.READ));
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "orders-eu", AclOperation.READ), "not a prefix rule");
        assertFalse(rules.allows(ALICE, ResourceType.GROUP, "orders", AclOperation.READ), "another resource type");
        assertFalse(rules.allows(BOB, ResourceType.TOPIC, "orders", AclOperation.READ), "another principal");
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "orders", AclOperation.WRITE), "another operation");
    }

    @Test
    void aPrefixedRuleMatchesEveryNameThatStartsWithIt() {
        // Given
        AclRules rules = new AclRules(List.of(allow("User:alice", ResourceType.TOPIC, PatternType.PREFIXED, "orders-",
                AclOperation.WRITE)));
        // Then
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "orders-eu", AclOperation.WRITE));
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "orders-", AclOperation.WRITE));
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "orders", AclOperation.WRITE));
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "my-orders-eu", AclOperation.WRITE));
    }

    @Test
    void aDenyWinsOverAnyAllow() {
        // Given: everything on the prefix, but Write on one topic denied
        AclRules rules = new AclRules(List.of(
                allow("User:alice", ResourceType.TOPIC, PatternType.PREFIXED, "orders", AclOperation.ALL),
                rule("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "orders-audit", AclOperation.WRITE,
                        AclPermissionType.DENY)));
        // Then
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "orders-audit", AclOperation.WRITE));
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "orders-audit", AclOperation.READ), "only Write is denied");
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "orders-eu", AclOperation.WRITE));
    }

    @Test
    void aDenyOfAllRefusesEveryOperation() {
        AclRules rules = new AclRules(List.of(
                allow("User:*", ResourceType.GROUP, PatternType.LITERAL, "*", AclOperation.READ),
                rule("User:bob", ResourceType.GROUP, PatternType.PREFIXED, "", AclOperation.ALL, AclPermissionType.DENY)));
        assertTrue(rules.allows(ALICE, ResourceType.GROUP, "billing", AclOperation.READ));
        assertFalse(rules.allows(BOB, ResourceType.GROUP, "billing", AclOperation.READ));
    }

    @Test
    void wildcardPrincipalAndWildcardNameMatchEveryone() {
        // Given
        AclRules rules = new AclRules(List.of(allow("User:*", ResourceType.TOPIC, PatternType.LITERAL, "*",
                AclOperation.DESCRIBE)));
        // Then
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "anything", AclOperation.DESCRIBE));
        assertTrue(rules.allows(BOB, ResourceType.TOPIC, "else", AclOperation.DESCRIBE));
        assertTrue(rules.allows(KafkaPrincipal.ANONYMOUS, ResourceType.TOPIC, "else", AclOperation.DESCRIBE));
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "anything", AclOperation.READ));
    }

    @Test
    void readWriteDeleteAndAlterImplyDescribeAndAlterConfigsImpliesDescribeConfigs() {
        for (AclOperation granting : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE,
                AclOperation.ALTER)) {
            AclRules rules = new AclRules(List.of(allow("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "t",
                    granting)));
            assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.DESCRIBE), granting + " implies Describe");
            assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.DESCRIBE_CONFIGS));
        }
        AclRules alterConfigs = new AclRules(List.of(allow("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "t",
                AclOperation.ALTER_CONFIGS)));
        assertTrue(alterConfigs.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.DESCRIBE_CONFIGS));
        assertFalse(alterConfigs.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.DESCRIBE));
    }

    @Test
    void anImpliedOperationIsNotDeniedByDenyingTheOperationThatImpliesIt() {
        // Kafka: a DENY Read does not deny Describe that an ALLOW Write grants.
        AclRules rules = new AclRules(List.of(
                allow("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "t", AclOperation.WRITE),
                rule("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "t", AclOperation.READ,
                        AclPermissionType.DENY)));
        assertTrue(rules.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.DESCRIBE));
        assertFalse(rules.allows(ALICE, ResourceType.TOPIC, "t", AclOperation.READ));
    }

    @Test
    void anIdempotentProducerNeedsWriteOnSomeTopic() {
        AclRules rules = new AclRules(List.of(allow("User:alice", ResourceType.TOPIC, PatternType.PREFIXED, "a-",
                AclOperation.WRITE)));
        assertTrue(rules.allowsAny(ALICE, null, ResourceType.TOPIC, AclOperation.WRITE));
        assertFalse(rules.allowsAny(BOB, null, ResourceType.TOPIC, AclOperation.WRITE));
    }

    @Test
    void aRuleWithAHostAppliesOnlyToClientsFromThatAddress() throws Exception {
        // Given alice may read from any host, but is denied from one address
        AclRules rules = new AclRules(List.of(
                allow("User:alice", ResourceType.TOPIC, PatternType.LITERAL, "orders", AclOperation.READ),
                new AclBinding(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                        new AccessControlEntry("User:alice", "203.0.113.7", AclOperation.READ, AclPermissionType.DENY))));

        // Then the deny applies from that address only, and not to a client whose address is unknown
        assertFalse(rules.allows(ALICE, InetAddress.getByName("203.0.113.7"), ResourceType.TOPIC, "orders",
                AclOperation.READ));
        assertTrue(rules.allows(ALICE, InetAddress.getByName("203.0.113.8"), ResourceType.TOPIC, "orders",
                AclOperation.READ));
        assertTrue(rules.allows(ALICE, null, ResourceType.TOPIC, "orders", AclOperation.READ));
    }

    @Test
    void anAllowWithAHostGrantsNothingFromAnotherAddress() throws Exception {
        // Given alice may write only from one address
        AclRules rules = new AclRules(List.of(new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                new AccessControlEntry("User:alice", "2001:db8:0:0:0:0:0:7", AclOperation.WRITE,
                        AclPermissionType.ALLOW))));

        // Then only that address may, and it counts for an idempotent producer only from there
        assertTrue(rules.allows(ALICE, InetAddress.getByName("2001:db8::7"), ResourceType.TOPIC, "orders",
                AclOperation.WRITE));
        assertFalse(rules.allows(ALICE, InetAddress.getByName("2001:db8::8"), ResourceType.TOPIC, "orders",
                AclOperation.WRITE));
        assertTrue(rules.allowsAny(ALICE, InetAddress.getByName("2001:db8::7"), ResourceType.TOPIC, AclOperation.WRITE));
        assertFalse(rules.allowsAny(ALICE, null, ResourceType.TOPIC, AclOperation.WRITE));
    }
}
