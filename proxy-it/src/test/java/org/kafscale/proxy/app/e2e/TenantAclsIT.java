package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * The ACL APIs in virtual clusters, against brokers running Kafka's StandardAuthorizer: alice
 * (team-a, prefix {@code a.}) and bob (team-b, prefix {@code b.}) each create, list and delete
 * ACLs with the Java Admin client through one proxy, in their own names. The brokers hold them
 * under each tenant's prefix; neither tenant ever lists or deletes the other's, nor the real
 * cluster's own; ACLs on the cluster itself are refused with a message.
 */
class TenantAclsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withSecurity(1,
            () -> BrokerSecurity.plaintext().withAuthorizer());

    @TempDir
    static Path dir;
    private static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice", "bob"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "a."
                    groupPrefix: "a."
                    transactionalIdPrefix: "a."
                  - name: team-b
                    principals: ["User:bob"]
                    topicPrefix: "b."
                    groupPrefix: "b."
                    transactionalIdPrefix: "b."
                """));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        // The real cluster's own ACL, on every topic: no tenant's to list or delete
        KAFKA.cluster().admin().createAcls(List.of(acl(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:ops")))
                .all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void eachTenantCreatesListsAndDeletesOnlyItsOwnAclsInItsOwnNames() throws Exception {
        AclBinding orders = acl(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice");
        AclBinding billing = acl(ResourceType.GROUP, "billing", PatternType.PREFIXED, "User:alice");
        AclBinding everyTxn = acl(ResourceType.TRANSACTIONAL_ID, "*", PatternType.LITERAL, "User:alice");
        AclBinding bobsOrders = acl(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:bob");
        try (Admin alice = Admin.create(ScramUsers.client(proxy.bootstrap(), "alice"));
             Admin bob = Admin.create(ScramUsers.client(proxy.bootstrap(), "bob"))) {
            // Given: each tenant creates ACLs in its own names
            alice.createAcls(List.of(orders, billing, everyTxn)).all().get(30, TimeUnit.SECONDS);
            bob.createAcls(List.of(bobsOrders)).all().get(30, TimeUnit.SECONDS);

            // Then the brokers hold them under each tenant's prefix, its '*' as its prefix
            Set<AclBinding> real = Set.of(
                    acl(ResourceType.TOPIC, "a.orders", PatternType.LITERAL, "User:alice"),
                    acl(ResourceType.GROUP, "a.billing", PatternType.PREFIXED, "User:alice"),
                    acl(ResourceType.TRANSACTIONAL_ID, "a.", PatternType.PREFIXED, "User:alice"),
                    acl(ResourceType.TOPIC, "b.orders", PatternType.LITERAL, "User:bob"));
            Eventually.await(DEADLINE, "the brokers hold both tenants' ACLs",
                    () -> describe(KAFKA.cluster().admin(), AclBindingFilter.ANY).containsAll(real));

            // And each tenant lists only its own, in its own names
            Eventually.await(DEADLINE, "alice lists her three", () -> describe(alice, AclBindingFilter.ANY)
                    .equals(Set.of(orders, billing, everyTxn)));
            assertEquals(Set.of(bobsOrders), describe(bob, AclBindingFilter.ANY));
            // A listing by name: the topic's literal ACL and, matching it, nothing of the real cluster's '*'
            assertEquals(Set.of(orders), describe(alice, new AclBindingFilter(
                    new ResourcePatternFilter(ResourceType.TOPIC, "orders", PatternType.MATCH),
                    AccessControlEntryFilter.ANY)));

            // When alice deletes her topic ACL by name
            Collection<AclBinding> deleted = alice.deleteAcls(List.of(new AclBindingFilter(
                    new ResourcePatternFilter(ResourceType.ANY, "orders", PatternType.ANY),
                    AccessControlEntryFilter.ANY))).all().get(30, TimeUnit.SECONDS);

            // Then her own goes, answered in her names; bob's orders and the real cluster's ACL stay
            assertEquals(List.of(orders), List.copyOf(deleted));
            Eventually.await(DEADLINE, "alice's topic ACL is gone", () -> describe(alice, AclBindingFilter.ANY)
                    .equals(Set.of(billing, everyTxn)));
            assertEquals(Set.of(bobsOrders), describe(bob, AclBindingFilter.ANY));
            assertTrue(describe(KAFKA.cluster().admin(), AclBindingFilter.ANY)
                    .contains(acl(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:ops")));
        }
    }

    @Test
    void aclsOnTheClusterAndDeletionsOfEveryNameAreRefusedNamingNoOtherTenant() throws Exception {
        try (Admin alice = Admin.create(ScramUsers.client(proxy.bootstrap(), "alice"))) {
            // When alice asks for an ACL on the real cluster
            ExecutionException cluster = assertThrows(ExecutionException.class, () -> alice.createAcls(List.of(
                    acl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:alice")))
                    .all().get(30, TimeUnit.SECONDS));
            // Then it is refused, saying why
            assertInstanceOf(ClusterAuthorizationException.class, cluster.getCause());
            assertTrue(cluster.getCause().getMessage().contains("not served to a virtual cluster"),
                    cluster.getCause().getMessage());

            // When she deletes by a filter matching every name
            ExecutionException every = assertThrows(ExecutionException.class,
                    () -> alice.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(30, TimeUnit.SECONDS));
            // Then it is refused, as no broker filter keeps it to her ACLs, and names no one else
            assertInstanceOf(InvalidRequestException.class, every.getCause());
            assertFalse(every.getCause().getMessage().contains("b."), every.getCause().getMessage());
        }
        // And the real cluster's ACL is still there
        assertTrue(describe(KAFKA.cluster().admin(), AclBindingFilter.ANY)
                .contains(acl(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:ops")));
    }

    private static AclBinding acl(ResourceType type, String name, PatternType pattern, String principal) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", AclOperation.READ, AclPermissionType.ALLOW));
    }

    private static Set<AclBinding> describe(Admin admin, AclBindingFilter filter) {
        try {
            return admin.describeAcls(filter).values().get(30, TimeUnit.SECONDS).stream().collect(Collectors.toSet());
        } catch (Exception e) {
            throw new IllegalStateException("DescribeAcls failed", e);
        }
    }
}
