package org.kafscale.proxy.core.security.authz;

import java.net.InetAddress;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * An immutable set of ACL rules (kafka-clients' {@link AclBinding}s) and the decision Kafka's own
 * authorizer makes from them: a matching DENY wins over any ALLOW, and with no matching ALLOW the
 * answer is no.
 *
 * <p>A rule matches a request when its principal is the client's or the wildcard {@code User:*},
 * its resource type is the resource's, its name is the resource's (LITERAL), the literal wildcard
 * {@code *}, or a prefix of it (PREFIXED), and its operation is the one asked or {@code All}. An
 * ALLOW rule also grants the operations Kafka derives from it: Describe from Read, Write, Delete
 * and Alter; DescribeConfigs from AlterConfigs. A rule's host is {@code *} (every host) or one IP
 * address, compared with the client's address (behind a load balancer that sends PROXY protocol
 * headers, the header's source), as Kafka compares it; a client whose address is unknown is
 * matched by {@code *} rules only.
 */
public final class AclRules {
    /** No rule at all: every request is refused. */
    public static final AclRules NONE = new AclRules(List.of());
    /** The host of a rule for every host. */
    public static final String WILDCARD_HOST = "*";

    private static final Map<AclOperation, Set<AclOperation>> IMPLIED_BY = impliedBy();

    private final List<AclBinding> rules;
    private final Map<ResourceType, List<AclBinding>> byType = new EnumMap<>(ResourceType.class);

    public AclRules(List<AclBinding> rules) {
        this.rules = List.copyOf(rules);
        for (ResourceType type : ResourceType.values()) {
            byType.put(type, this.rules.stream().filter(r -> r.pattern().resourceType() == type).toList());
        }
    }

    /** The rules, in the order given. */
    public List<AclBinding> rules() {
        return rules;
    }

    /** Whether {@code principal}, from no address a rule names, may do {@code operation} on {@code type}:{@code name}. */
    public boolean allows(KafkaPrincipal principal, ResourceType type, String name, AclOperation operation) {
        return allows(principal, null, type, name, operation);
    }

    /**
     * Whether {@code principal} connecting from {@code host} may do {@code operation} on the
     * resource {@code type}:{@code name}.
     *
     * @param host the client's address; null when unknown
     */
    public boolean allows(KafkaPrincipal principal, InetAddress host, ResourceType type, String name,
                          AclOperation operation) {
        String who = principal.toString();
        String from = hostOf(host);
        boolean allowed = false;
        for (AclBinding rule : byType.get(type)) {
            AccessControlEntry entry = rule.entry();
            if (!principalMatches(entry.principal(), principal, who) || !hostMatches(entry.host(), from)
                    || !nameMatches(rule.pattern(), name)) {
                continue;
            }
            if (entry.permissionType() == AclPermissionType.DENY) {
                if (entry.operation() == AclOperation.ALL || entry.operation() == operation) {
                    return false;
                }
            } else if (grants(entry.operation(), operation)) {
                allowed = true;
            }
        }
        return allowed;
    }

    /**
     * Whether some ALLOW rule lets {@code principal} do {@code operation} on at least one resource of
     * {@code type} (Kafka's check for an idempotent producer: Write on any topic). Deny rules for
     * some names do not take that away, as in Kafka.
     */
    public boolean allowsAny(KafkaPrincipal principal, InetAddress host, ResourceType type, AclOperation operation) {
        String who = principal.toString();
        String from = hostOf(host);
        return byType.get(type).stream().anyMatch(rule -> rule.entry().permissionType() == AclPermissionType.ALLOW
                && principalMatches(rule.entry().principal(), principal, who)
                && hostMatches(rule.entry().host(), from)
                && grants(rule.entry().operation(), operation));
    }

    private static boolean principalMatches(String rulePrincipal, KafkaPrincipal principal, String who) {
        return rulePrincipal.equals(who)
                || rulePrincipal.equals(principal.getPrincipalType() + ":" + ResourcePattern.WILDCARD_RESOURCE);
    }

    /** Kafka's comparison: the wildcard, or the address's literal text. */
    private static boolean hostMatches(String ruleHost, String from) {
        return ruleHost.equals(WILDCARD_HOST) || ruleHost.equals(from);
    }

    /** The address as Kafka's authorizer compares it ({@link InetAddress#getHostAddress}); null when unknown. */
    private static String hostOf(InetAddress host) {
        return host == null ? null : host.getHostAddress();
    }

    private static boolean nameMatches(ResourcePattern pattern, String name) {
        if (pattern.patternType() == PatternType.PREFIXED) {
            return name.startsWith(pattern.name());
        }
        return pattern.name().equals(ResourcePattern.WILDCARD_RESOURCE) || pattern.name().equals(name);
    }

    private static boolean grants(AclOperation ruleOperation, AclOperation asked) {
        return ruleOperation == AclOperation.ALL || ruleOperation == asked
                || IMPLIED_BY.getOrDefault(asked, Set.of()).contains(ruleOperation);
    }

    private static Map<AclOperation, Set<AclOperation>> impliedBy() {
        Map<AclOperation, Set<AclOperation>> implied = new EnumMap<>(AclOperation.class);
        implied.put(AclOperation.DESCRIBE,
                EnumSet.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER));
        implied.put(AclOperation.DESCRIBE_CONFIGS, EnumSet.of(AclOperation.ALTER_CONFIGS));
        return implied;
    }

    @Override
    public String toString() {
        return rules.size() + " ACL rule(s)";
    }
}
