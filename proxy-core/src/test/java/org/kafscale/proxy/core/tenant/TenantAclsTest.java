package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.security.authz.AclAuthorizer;
import org.kafscale.proxy.core.security.authz.AclRules;

/** A tenant's ACL rules, written in its own names, decide over its real names only. */
class TenantAclsTest {
    private static final KafkaPrincipal ALICE = TeamA.ALICE;
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
    private static final VirtualCluster TEAM_B = new VirtualCluster("team-b", VirtualCluster.derivedClusterId("team-b"),
            TenantNames.prefixed("b."), Set.of(BOB));
    private static final Optional<String> TEAM_A_NAME = Optional.of("team-a");
    private static final Optional<String> TEAM_B_NAME = Optional.of(TEAM_B.name());

    @Test
    void aLiteralNameIsTheTenantsOwnTopicGroupOrTransactionalId() {
        AclRules real = TenantAcls.inRealNames(TeamA.CLUSTER, rules(
                allow("User:alice", ResourceType.TOPIC, "orders", PatternType.LITERAL, AclOperation.WRITE),
                allow("User:alice", ResourceType.GROUP, "billing", PatternType.LITERAL, AclOperation.READ),
                allow("User:alice", ResourceType.TRANSACTIONAL_ID, "tx", PatternType.LITERAL, AclOperation.WRITE)));

        assertTrue(real.allows(ALICE, ResourceType.TOPIC, "a.orders", AclOperation.WRITE));
        assertTrue(real.allows(ALICE, ResourceType.GROUP, "a.billing", AclOperation.READ));
        assertTrue(real.allows(ALICE, ResourceType.TRANSACTIONAL_ID, "a.tx", AclOperation.WRITE));
        // The same names unprefixed, or another tenant's, are not what the rule names
        assertFalse(real.allows(ALICE, ResourceType.TOPIC, "orders", AclOperation.WRITE));
        assertFalse(real.allows(ALICE, ResourceType.TOPIC, "b.orders", AclOperation.WRITE));
    }

    @Test
    void theWildcardAndPrefixesStayInsideTheTenantsPrefix() {
        AclRules real = TenantAcls.inRealNames(TeamA.CLUSTER, rules(
                allow("User:alice", ResourceType.TOPIC, "*", PatternType.LITERAL, AclOperation.READ),
                allow("User:alice", ResourceType.GROUP, "app-", PatternType.PREFIXED, AclOperation.READ)));

        assertTrue(real.allows(ALICE, ResourceType.TOPIC, "a.anything", AclOperation.READ));
        assertFalse(real.allows(ALICE, ResourceType.TOPIC, "b.orders", AclOperation.READ));
        assertFalse(real.allows(ALICE, ResourceType.TOPIC, "__consumer_offsets", AclOperation.READ));
        assertTrue(real.allows(ALICE, ResourceType.GROUP, "a.app-1", AclOperation.READ));
        assertFalse(real.allows(ALICE, ResourceType.GROUP, "app-1", AclOperation.READ));
    }

    @Test
    void clusterRulesStayAsTheyAre() {
        AclRules real = TenantAcls.inRealNames(TeamA.CLUSTER, rules(
                allow("User:alice", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                        AclOperation.IDEMPOTENT_WRITE)));

        assertTrue(real.allows(ALICE, ResourceType.CLUSTER, "kafka-cluster", AclOperation.IDEMPOTENT_WRITE));
    }

    @Test
    void aRuleForAPrincipalOutsideTheVirtualClusterIsRefusedByNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TenantAcls.inRealNames(TeamA.CLUSTER, rules(
                        allow("User:alice", ResourceType.TOPIC, "orders", PatternType.LITERAL, AclOperation.READ),
                        allow("User:bob", ResourceType.TOPIC, "orders", PatternType.LITERAL, AclOperation.READ))));

        assertEquals("rule 2 is for User:bob, who is not in virtual cluster 'team-a'", e.getMessage());
    }

    @Test
    void aWildcardPrincipalMeansEachOfTheVirtualClustersOwn() {
        AclAuthorizer teamA = new AclAuthorizer(TenantAcls.inRealNames(TeamA.CLUSTER, rules(
                allow("User:*", ResourceType.TOPIC, "*", PatternType.LITERAL, AclOperation.ALL))));
        TenantAcls acls = new TenantAcls(Optional.empty(), Map.of("team-a", teamA));

        assertTrue(acls.rulesFor(ALICE, TEAM_A_NAME).orElseThrow().allows(ALICE, ResourceType.TOPIC, "a.orders", AclOperation.READ));
        // bob's virtual cluster has no ACL file and there is no shared one: bob is not checked at all
        assertTrue(acls.rulesFor(BOB, TEAM_B_NAME).isEmpty());
    }

    @Test
    void theSharedFileDecidesTooAndItsDenyWins() {
        AclAuthorizer shared = new AclAuthorizer(rules(
                deny("User:alice", ResourceType.TOPIC, "a.secret", AclOperation.READ),
                allow("User:bob", ResourceType.TOPIC, "b.", PatternType.PREFIXED, AclOperation.READ)));
        AclAuthorizer teamA = new AclAuthorizer(TenantAcls.inRealNames(TeamA.CLUSTER, rules(
                allow("User:alice", ResourceType.TOPIC, "*", PatternType.LITERAL, AclOperation.READ))));
        TenantAcls acls = new TenantAcls(Optional.of(shared), Map.of("team-a", teamA));

        AclRules alice = acls.rulesFor(ALICE, TEAM_A_NAME).orElseThrow();
        assertTrue(alice.allows(ALICE, ResourceType.TOPIC, "a.orders", AclOperation.READ));
        assertFalse(alice.allows(ALICE, ResourceType.TOPIC, "a.secret", AclOperation.READ));
        // bob's virtual cluster has no file of its own: the shared rules alone
        assertSame(shared.rules(), acls.rulesFor(BOB, TEAM_B_NAME).orElseThrow());
        // and the joined set is made once, not per request, until a file is reloaded
        assertSame(alice, acls.rulesFor(ALICE, TEAM_A_NAME).orElseThrow());
        teamA.replace(TenantAcls.inRealNames(TeamA.CLUSTER, rules()));
        assertFalse(acls.rulesFor(ALICE, TEAM_A_NAME).orElseThrow().allows(ALICE, ResourceType.TOPIC, "a.orders", AclOperation.READ));
    }

    private static AclRules rules(AclBinding... rules) {
        return new AclRules(List.of(rules));
    }

    private static AclBinding allow(String principal, ResourceType type, String name, PatternType pattern,
                                    AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private static AclBinding deny(String principal, ResourceType type, String name, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.DENY));
    }
}
