package org.kafscale.proxy.core.tenant;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData.DeleteAclsFilter;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsMatchingAcl;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACL APIs in a virtual cluster: a tenant creates, lists and deletes the brokers' ACLs on its
 * own topics, groups and transactional ids, in its own names ({@link AclPatterns}: {@code orders}
 * is {@code team-a.orders} at the broker, the literal {@code *} the prefixed {@code team-a.}).
 * ACLs on the cluster, users and delegation tokens are the real cluster's: a request naming one is
 * refused whole, and a listing of every type leaves them out. Principals, hosts and operations
 * are left as sent.
 *
 * <p>A broker's filter cannot say "names under this prefix". So a listing that the tenant's filter
 * cannot be translated into exactly (any name, the wildcard, a type whose prefix differs) asks the
 * broker for more, and the answer keeps what the tenant's own filter matches among its own ACLs.
 * A deletion must be exact: each tenant filter becomes the real filters that match what it
 * matches among the tenant's ACLs (one for a literal, prefixed or any-pattern name; one per prefix
 * of the name for a MATCH, as a broker matches prefixed ACLs), and their results are merged back
 * into one. A deletion filter matching any name cannot be, and is refused.
 */
public final class AclIsolations {
    private static final String REFUSED = "a request naming a cluster, user or delegation-token resource is "
            + "refused whole with CLUSTER_AUTHORIZATION_FAILED";
    private static final List<ResourceType> PREFIXED_TYPES = List.of(ResourceType.TOPIC, ResourceType.GROUP,
            ResourceType.TRANSACTIONAL_ID);

    public static final Isolation DESCRIBE_ACLS = Isolation.rewritten(DescribeAclsRequestData.class,
            AclIsolations::describeRequest, DescribeAclsResponseData.class, AclIsolations::describeAnswer,
            "resource name filter prefixed (any name, `*` or every type: a wider filter, the answer narrowed to the "
                    + "tenant's filter); answer keeps only the tenant's topic, group and transactional-id ACLs, "
                    + "names back; " + REFUSED);

    public static final Isolation CREATE_ACLS = Isolation.rewritten(CreateAclsRequestData.class,
            AclIsolations::createRequest, CreateAclsResponseData.class,
            (a, s) -> a.results().forEach(r -> r.setErrorMessage(s.names().scrub(r.errorMessage()))),
            "resource names prefixed (literal `*`: the prefix, prefixed); " + REFUSED);

    public static final Isolation DELETE_ACLS = Isolation.rewritten(DeleteAclsRequestData.class,
            AclIsolations::deleteRequest, DeleteAclsResponseData.class, AclIsolations::deleteAnswer,
            "each filter made the exact real filters for the tenant's ACLs, results merged back, names back; "
                    + "a filter matching any name is refused with INVALID_REQUEST; " + REFUSED);

    private AclIsolations() {
    }

    private static void describeRequest(DescribeAclsRequestData q, TenantScope scope) {
        ResourceType type = tenantType(q.resourceTypeFilter());
        PatternType patternType = knownPatternType(q.patternTypeFilter());
        String name = q.resourceNameFilter();
        scope.keep(new ResourcePatternFilter(type, name, patternType));
        String prefix = type == ResourceType.ANY ? sharedPrefix(scope.names()) : AclPatterns.prefix(scope.names(), type);
        if (name == null || name.equals(ResourcePattern.WILDCARD_RESOURCE) || prefix == null) {
            q.setResourceNameFilter(null).setPatternTypeFilter(PatternType.ANY.code());
        } else {
            // Exact for LITERAL, PREFIXED and ANY; for MATCH it also finds the real cluster's '*' and
            // shorter prefixes, which the answer drops.
            q.setResourceNameFilter(prefix + name);
        }
    }

    private static void describeAnswer(DescribeAclsResponseData a, TenantScope scope) {
        ResourcePatternFilter asked = scope.kept(ResourcePatternFilter.class);
        TenantNames names = scope.names();
        a.setErrorMessage(names.scrub(a.errorMessage()));
        List<DescribeAclsResponseData.DescribeAclsResource> own = new ArrayList<>();
        for (DescribeAclsResponseData.DescribeAclsResource resource : a.resources()) {
            AclPatterns.client(names, ResourceType.fromCode(resource.resourceType()), resource.resourceName(),
                            PatternType.fromCode(resource.patternType()))
                    .filter(asked::matches)
                    .ifPresent(pattern -> own.add(resource.setResourceName(pattern.name())
                            .setPatternType(pattern.patternType().code())));
        }
        a.setResources(own);
    }

    private static void createRequest(CreateAclsRequestData q, TenantScope scope) {
        for (CreateAclsRequestData.AclCreation creation : q.creations()) {
            ResourceType type = ResourceType.fromCode(creation.resourceType());
            requirePrefixed(type);
            if (creation.resourceName() == null || creation.resourceName().isEmpty()) {
                throw new TenantRefusal(Errors.INVALID_REQUEST, "an ACL needs a resource name");
            }
        }
        // Every creation is checked before any is renamed: a refusal leaves the request as the client sent it.
        for (CreateAclsRequestData.AclCreation creation : q.creations()) {
            ResourcePattern real = AclPatterns.real(scope.names(), new ResourcePattern(
                    ResourceType.fromCode(creation.resourceType()), creation.resourceName(),
                    PatternType.fromCode(creation.resourcePatternType())));
            creation.setResourceName(real.name()).setResourcePatternType(real.patternType().code());
        }
    }

    private static void deleteRequest(DeleteAclsRequestData q, TenantScope scope) {
        for (DeleteAclsFilter filter : q.filters()) {
            tenantType(filter.resourceTypeFilter());
            knownPatternType(filter.patternTypeFilter());
            if (filter.resourceNameFilter() == null) {
                throw new TenantRefusal(Errors.INVALID_REQUEST, "a virtual cluster deletes ACLs by resource name "
                        + "('*' for its wildcard ACLs): a filter matching any name cannot be kept to its own");
            }
        }
        List<Integer> counts = new ArrayList<>();
        List<DeleteAclsFilter> real = new ArrayList<>();
        for (DeleteAclsFilter filter : q.filters()) {
            int before = real.size();
            ResourceType type = ResourceType.fromCode(filter.resourceTypeFilter());
            for (ResourceType each : type == ResourceType.ANY ? PREFIXED_TYPES : List.of(type)) {
                for (ResourcePatternFilter pattern : exactFilters(scope.names(), each, filter.resourceNameFilter(),
                        PatternType.fromCode(filter.patternTypeFilter()))) {
                    real.add(filter.duplicate().setResourceTypeFilter(pattern.resourceType().code())
                            .setResourceNameFilter(pattern.name()).setPatternTypeFilter(pattern.patternType().code()));
                }
            }
            counts.add(real.size() - before);
        }
        scope.keep(counts);
        q.setFilters(real);
    }

    /**
     * The real filters that together match exactly what {@code name} of {@code patternType} matches
     * among the tenant's ACLs of {@code type}, none matching what another filter of them does.
     */
    private static List<ResourcePatternFilter> exactFilters(TenantNames names, ResourceType type, String name,
                                                            PatternType patternType) {
        String prefix = AclPatterns.prefix(names, type);
        boolean wildcard = name.equals(ResourcePattern.WILDCARD_RESOURCE);
        List<ResourcePatternFilter> filters = new ArrayList<>();
        switch (patternType) {
            case LITERAL -> filters.add(wildcard ? new ResourcePatternFilter(type, prefix, PatternType.PREFIXED)
                    : new ResourcePatternFilter(type, prefix + name, PatternType.LITERAL));
            case PREFIXED -> filters.add(new ResourcePatternFilter(type, prefix + name, PatternType.PREFIXED));
            case ANY -> {
                if (wildcard) {
                    filters.add(new ResourcePatternFilter(type, prefix, PatternType.PREFIXED));
                    filters.add(new ResourcePatternFilter(type, prefix + name, PatternType.PREFIXED));
                } else {
                    filters.add(new ResourcePatternFilter(type, prefix + name, PatternType.ANY));
                }
            }
            default -> {
                // MATCH: the literal name, the tenant's '*' (the prefix itself) and every prefixed ACL the name starts with
                if (!wildcard) {
                    filters.add(new ResourcePatternFilter(type, prefix + name, PatternType.LITERAL));
                }
                for (int end = 0; end <= name.length(); end++) {
                    filters.add(new ResourcePatternFilter(type, prefix + name.substring(0, end), PatternType.PREFIXED));
                }
            }
        }
        return filters;
    }

    @SuppressWarnings("unchecked")
    private static void deleteAnswer(DeleteAclsResponseData a, TenantScope scope) {
        List<Integer> counts = scope.kept(List.class);
        TenantNames names = scope.names();
        List<DeleteAclsFilterResult> merged = new ArrayList<>();
        int next = 0;
        for (int count : counts) {
            DeleteAclsFilterResult one = new DeleteAclsFilterResult();
            List<DeleteAclsMatchingAcl> matching = new ArrayList<>();
            for (DeleteAclsFilterResult result : a.filterResults().subList(next, next + count)) {
                if (one.errorCode() == Errors.NONE.code() && result.errorCode() != Errors.NONE.code()) {
                    one.setErrorCode(result.errorCode()).setErrorMessage(names.scrub(result.errorMessage()));
                }
                for (DeleteAclsMatchingAcl acl : result.matchingAcls()) {
                    Optional<ResourcePattern> own = AclPatterns.client(names, ResourceType.fromCode(acl.resourceType()),
                            acl.resourceName(), PatternType.fromCode(acl.patternType()));
                    own.ifPresent(pattern -> matching.add(acl.setResourceName(pattern.name())
                            .setPatternType(pattern.patternType().code())
                            .setErrorMessage(names.scrub(acl.errorMessage()))));
                }
            }
            next += count;
            merged.add(one.setMatchingAcls(matching));
        }
        a.setFilterResults(merged);
    }

    /** A type a tenant may name in a filter: {@code ANY} or one with a prefix. */
    private static ResourceType tenantType(byte code) {
        ResourceType type = ResourceType.fromCode(code);
        if (type != ResourceType.ANY) {
            requirePrefixed(type);
        }
        return type;
    }

    /** @throws TenantRefusal for a resource type that is the real cluster's, or one Kafka does not know */
    private static void requirePrefixed(ResourceType type) {
        if (type == ResourceType.UNKNOWN) {
            throw new TenantRefusal(Errors.INVALID_REQUEST, "unknown ACL resource type");
        }
        if (!PREFIXED_TYPES.contains(type)) {
            throw new TenantRefusal(Errors.CLUSTER_AUTHORIZATION_FAILED, "ACLs on " + type
                    + " resources are not served to a virtual cluster, only on its topics, groups and transactional ids");
        }
    }

    private static PatternType knownPatternType(byte code) {
        PatternType type = PatternType.fromCode(code);
        if (type == PatternType.UNKNOWN) {
            throw new TenantRefusal(Errors.INVALID_REQUEST, "unknown ACL pattern type");
        }
        return type;
    }

    /** The one prefix of topics, groups and transactional ids; null when they differ. */
    private static String sharedPrefix(TenantNames names) {
        String topic = names.topicPrefix();
        return topic.equals(names.groupPrefix()) && topic.equals(names.transactionalIdPrefix()) ? topic : null;
    }
}
