package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class AclIsolationsTest {
    private static final byte TOPIC = ResourceType.TOPIC.code();
    private static final byte LITERAL = PatternType.LITERAL.code();
    private static final byte PREFIXED = PatternType.PREFIXED.code();
    private final TenantScope scope = TeamA.scope();

    @Test
    void createPrefixesNamesAndMakesTheWildcardTheTenantsPrefix() {
        CreateAclsRequestData request = new CreateAclsRequestData().setCreations(new ArrayList<>(List.of(
                creation(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                creation(ResourceType.GROUP, "bill", PatternType.PREFIXED),
                creation(ResourceType.TRANSACTIONAL_ID, "*", PatternType.LITERAL))));

        AclIsolations.CREATE_ACLS.rewriteRequest(request, scope);

        assertEquals("a.orders", request.creations().get(0).resourceName());
        assertEquals(LITERAL, request.creations().get(0).resourcePatternType());
        assertEquals("a.bill", request.creations().get(1).resourceName());
        assertEquals(PREFIXED, request.creations().get(1).resourcePatternType());
        assertEquals("a.", request.creations().get(2).resourceName());
        assertEquals(PREFIXED, request.creations().get(2).resourcePatternType());
    }

    @Test
    void createOnTheClusterIsRefusedWholeNamingNoOneElse() {
        CreateAclsRequestData request = new CreateAclsRequestData().setCreations(new ArrayList<>(List.of(
                creation(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                creation(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL))));

        TenantRefusal refusal = assertThrows(TenantRefusal.class,
                () -> AclIsolations.CREATE_ACLS.rewriteRequest(request, scope));

        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, refusal.error());
        assertTrue(refusal.getMessage().contains("CLUSTER"), refusal.getMessage());
        assertEquals("orders", request.creations().get(0).resourceName(), "nothing renamed before the refusal");
    }

    @Test
    void describeOfEveryNameKeepsOnlyTheTenantsAclsInItsNames() {
        // Given: a listing of every topic ACL
        DescribeAclsRequestData request = new DescribeAclsRequestData().setResourceTypeFilter(TOPIC)
                .setResourceNameFilter(null).setPatternTypeFilter(PatternType.ANY.code());
        AclIsolations.DESCRIBE_ACLS.rewriteRequest(request, scope);
        assertNull(request.resourceNameFilter());

        // When the broker lists the real cluster's, another tenant's and team a's
        DescribeAclsResponseData answer = new DescribeAclsResponseData().setResources(new ArrayList<>(List.of(
                resource("a.orders", LITERAL), resource("b.orders", LITERAL), resource("*", LITERAL),
                resource("a.", PREFIXED), resource("a.pay", PREFIXED), resource("a", PREFIXED))));
        AclIsolations.DESCRIBE_ACLS.rewriteAnswer(answer, scope);

        // Then only team a's remain, in its names; its prefix is its '*'
        assertEquals(List.of("orders/LITERAL", "*/LITERAL", "pay/PREFIXED"), described(answer));
    }

    @Test
    void describeOfTheWildcardFindsTheTenantsPrefixedPrefixOnly() {
        DescribeAclsRequestData request = new DescribeAclsRequestData().setResourceTypeFilter(TOPIC)
                .setResourceNameFilter("*").setPatternTypeFilter(LITERAL);
        AclIsolations.DESCRIBE_ACLS.rewriteRequest(request, scope);

        DescribeAclsResponseData answer = new DescribeAclsResponseData().setResources(new ArrayList<>(List.of(
                resource("a.orders", LITERAL), resource("a.", PREFIXED), resource("*", LITERAL))));
        AclIsolations.DESCRIBE_ACLS.rewriteAnswer(answer, scope);

        assertEquals(List.of("*/LITERAL"), described(answer));
    }

    @Test
    void describeByMatchDropsTheRealClustersWildcardAndShorterPrefixes() {
        DescribeAclsRequestData request = new DescribeAclsRequestData().setResourceTypeFilter(TOPIC)
                .setResourceNameFilter("orders").setPatternTypeFilter(PatternType.MATCH.code());
        AclIsolations.DESCRIBE_ACLS.rewriteRequest(request, scope);
        assertEquals("a.orders", request.resourceNameFilter());

        DescribeAclsResponseData answer = new DescribeAclsResponseData().setResources(new ArrayList<>(List.of(
                resource("a.orders", LITERAL), resource("*", LITERAL), resource("a", PREFIXED),
                resource("a.or", PREFIXED), resource("a.", PREFIXED))));
        AclIsolations.DESCRIBE_ACLS.rewriteAnswer(answer, scope);

        assertEquals(List.of("orders/LITERAL", "or/PREFIXED", "*/LITERAL"), described(answer));
    }

    @Test
    void deleteByMatchBecomesExactRealFiltersMergedBackIntoOneResult() {
        // Given: delete what matches topic "ab"
        DeleteAclsRequestData request = new DeleteAclsRequestData().setFilters(new ArrayList<>(List.of(
                filter(ResourceType.TOPIC, "ab", PatternType.MATCH))));
        AclIsolations.DELETE_ACLS.rewriteRequest(request, scope);

        // Then the broker gets the literal name, the tenant's '*' and each prefix of the name
        List<String> real = request.filters().stream().map(f -> f.resourceNameFilter() + "/"
                + PatternType.fromCode(f.patternTypeFilter())).toList();
        assertEquals(List.of("a.ab/LITERAL", "a./PREFIXED", "a.a/PREFIXED", "a.ab/PREFIXED"), real);

        // When two of them matched
        DeleteAclsResponseData answer = new DeleteAclsResponseData().setFilterResults(new ArrayList<>(List.of(
                result(matching("a.ab", LITERAL)), result(), result(matching("a.a", PREFIXED)), result())));
        AclIsolations.DELETE_ACLS.rewriteAnswer(answer, scope);

        // Then the client reads one result for its one filter, in its names
        assertEquals(1, answer.filterResults().size());
        assertEquals(List.of("ab/LITERAL", "a/PREFIXED"), answer.filterResults().get(0).matchingAcls().stream()
                .map(m -> m.resourceName() + "/" + PatternType.fromCode(m.patternType())).toList());
    }

    @Test
    void deleteOfEveryTypeCoversTheTenantsThreeKindsOfNames() {
        DeleteAclsRequestData request = new DeleteAclsRequestData().setFilters(new ArrayList<>(List.of(
                filter(ResourceType.ANY, "orders", PatternType.LITERAL))));
        AclIsolations.DELETE_ACLS.rewriteRequest(request, scope);

        assertEquals(List.of(ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID), request.filters()
                .stream().map(f -> ResourceType.fromCode(f.resourceTypeFilter())).toList());
        assertTrue(request.filters().stream().allMatch(f -> f.resourceNameFilter().equals("a.orders")));
    }

    @Test
    void deleteOfAnyNameIsRefusedAsItCannotBeKeptToTheTenant() {
        DeleteAclsRequestData request = new DeleteAclsRequestData().setFilters(new ArrayList<>(List.of(
                filter(ResourceType.TOPIC, null, PatternType.ANY))));

        TenantRefusal refusal = assertThrows(TenantRefusal.class,
                () -> AclIsolations.DELETE_ACLS.rewriteRequest(request, scope));

        assertEquals(Errors.INVALID_REQUEST, refusal.error());
    }

    private static CreateAclsRequestData.AclCreation creation(ResourceType type, String name, PatternType pattern) {
        return new CreateAclsRequestData.AclCreation().setResourceType(type.code()).setResourceName(name)
                .setResourcePatternType(pattern.code()).setPrincipal("User:alice").setHost("*")
                .setOperation((byte) 3).setPermissionType((byte) 3);
    }

    private static DeleteAclsRequestData.DeleteAclsFilter filter(ResourceType type, String name, PatternType pattern) {
        return new DeleteAclsRequestData.DeleteAclsFilter().setResourceTypeFilter(type.code()).setResourceNameFilter(name)
                .setPatternTypeFilter(pattern.code()).setPrincipalFilter(null).setHostFilter(null)
                .setOperation((byte) 1).setPermissionType((byte) 1);
    }

    private static DescribeAclsResponseData.DescribeAclsResource resource(String name, byte pattern) {
        return new DescribeAclsResponseData.DescribeAclsResource().setResourceType(TOPIC).setResourceName(name)
                .setPatternType(pattern);
    }

    private static DeleteAclsResponseData.DeleteAclsMatchingAcl matching(String name, byte pattern) {
        return new DeleteAclsResponseData.DeleteAclsMatchingAcl().setResourceType(TOPIC).setResourceName(name)
                .setPatternType(pattern);
    }

    private static DeleteAclsResponseData.DeleteAclsFilterResult result(DeleteAclsResponseData.DeleteAclsMatchingAcl... acls) {
        return new DeleteAclsResponseData.DeleteAclsFilterResult().setMatchingAcls(new ArrayList<>(List.of(acls)));
    }

    private static List<String> described(DescribeAclsResponseData answer) {
        return answer.resources().stream().map(r -> r.resourceName() + "/" + PatternType.fromCode(r.patternType()))
                .toList();
    }
}
