package org.kafscale.proxy.core.tenant;

import java.util.Optional;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * How an ACL's resource pattern, written in a virtual cluster's names, maps onto the real
 * cluster's and back. A literal name and a prefixed pattern get the prefix of their kind (topic,
 * group, transactional id); the literal wildcard {@code *} becomes the prefix itself as a prefixed
 * pattern (every name of the tenant's, none of anyone else's). Both ways are one-to-one, so a real
 * pattern that no tenant pattern maps to (another tenant's, the real cluster's literal {@code *},
 * a prefix shorter than the tenant's) is no tenant pattern at all.
 */
final class AclPatterns {
    private AclPatterns() {
    }

    /** The prefix of {@code type}'s names; null for a resource that is the real cluster's (cluster, user, token). */
    static String prefix(TenantNames names, ResourceType type) {
        return switch (type) {
            case TOPIC -> names.topicPrefix();
            case GROUP -> names.groupPrefix();
            case TRANSACTIONAL_ID -> names.transactionalIdPrefix();
            default -> null;
        };
    }

    /** {@code pattern} over the real cluster's names; a resource without a prefix stays as it is. */
    static ResourcePattern real(TenantNames names, ResourcePattern pattern) {
        String prefix = prefix(names, pattern.resourceType());
        if (prefix == null) {
            return pattern;
        }
        if (pattern.patternType() == PatternType.LITERAL && pattern.name().equals(ResourcePattern.WILDCARD_RESOURCE)) {
            return new ResourcePattern(pattern.resourceType(), prefix, PatternType.PREFIXED);
        }
        return new ResourcePattern(pattern.resourceType(), prefix + pattern.name(), pattern.patternType());
    }

    /** The tenant's pattern that {@link #real} maps to {@code real}; empty when none does. */
    static Optional<ResourcePattern> client(TenantNames names, ResourceType type, String realName, PatternType patternType) {
        String prefix = prefix(names, type);
        if (prefix == null || realName == null || !realName.startsWith(prefix)) {
            return Optional.empty();
        }
        String name = realName.substring(prefix.length());
        if (patternType == PatternType.PREFIXED) {
            return Optional.of(name.isEmpty()
                    ? new ResourcePattern(type, ResourcePattern.WILDCARD_RESOURCE, PatternType.LITERAL)
                    : new ResourcePattern(type, name, PatternType.PREFIXED));
        }
        // A literal prefix+"*" is no tenant's: the tenant's literal "*" is the prefixed prefix.
        if (patternType == PatternType.LITERAL && !name.isEmpty() && !name.equals(ResourcePattern.WILDCARD_RESOURCE)) {
            return Optional.of(new ResourcePattern(type, name, PatternType.LITERAL));
        }
        return Optional.empty();
    }
}
