package org.kafscale.proxy.core.tenant;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.security.authz.AclAuthorizer;
import org.kafscale.proxy.core.security.authz.AclRules;
import org.kafscale.proxy.core.security.authz.AclsInForce;

/**
 * The ACL rules of virtual clusters that have an ACL file of their own. A tenant writes its rules
 * in its own names ({@code orders}, {@code billing}, {@code *}); {@link #inRealNames} turns them
 * into rules over the real cluster's names, inside the tenant's prefixes only, so no rule a tenant
 * writes reaches another tenant's topics. Authorization runs after the tenant policy, on real
 * names, so the translated rules are checked as any others.
 *
 * <p>A principal of a virtual cluster with an ACL file is decided by the shared ACL file's rules
 * (when there is one) and its virtual cluster's together, as one set: a DENY of either wins, and
 * an ALLOW of either grants. So the platform's file can still deny a tenant what its own file
 * allows. Every other principal is decided by the shared file alone, or not checked without one.
 */
public final class TenantAcls implements AclsInForce {
    private final Optional<AclsInForce> shared;
    private final Map<String, AclAuthorizer> own;
    /** Each virtual cluster's rules joined with the shared ones, made again when either set is replaced. */
    private final Map<String, Joined> joined = new ConcurrentHashMap<>();

    /**
     * @param shared the rules of the proxy's ACL file, for every principal; empty without one
     * @param own the rules (already in real names) of each virtual cluster with a file of its own, by name
     */
    public TenantAcls(Optional<AclsInForce> shared, Map<String, AclAuthorizer> own) {
        this.shared = shared;
        this.own = Map.copyOf(own);
    }

    @Override
    public Optional<AclRules> rulesFor(KafkaPrincipal principal, Optional<String> virtualCluster) {
        Optional<AclRules> common = shared.flatMap(acls -> acls.rulesFor(principal, virtualCluster));
        String name = virtualCluster.orElse(null);
        AclAuthorizer tenants = name == null ? null : own.get(name);
        if (tenants == null) {
            return common;
        }
        if (common.isEmpty()) {
            return tenants.rulesFor(principal, virtualCluster);
        }
        AclRules ownRules = tenants.rules();
        Joined last = joined.get(name);
        if (last == null || last.shared != common.get() || last.own != ownRules) {
            List<AclBinding> both = new ArrayList<>(common.get().rules());
            both.addAll(ownRules.rules());
            last = new Joined(common.get(), ownRules, Optional.of(new AclRules(both)));
            joined.put(name, last);
        }
        return last.both;
    }

    /**
     * {@code rules}, written in {@code cluster}'s names, over the real cluster's names: a literal
     * name gets the prefix of its kind, a prefixed pattern too, and the literal wildcard {@code *}
     * becomes the prefix itself (every name of the tenant's, none of anyone else's). Cluster rules
     * stay as they are: the tenant policy already keeps a tenant's cluster-wide calls to its own names.
     *
     * @throws IllegalArgumentException naming the rule, when it is for a principal outside the
     *     virtual cluster (other than a wildcard, which here means each of its principals)
     */
    public static AclRules inRealNames(VirtualCluster cluster, AclRules rules) {
        List<AclBinding> real = new ArrayList<>();
        int number = 0;
        for (AclBinding rule : rules.rules()) {
            number++;
            AccessControlEntry entry = rule.entry();
            if (!entry.principal().endsWith(":" + ResourcePattern.WILDCARD_RESOURCE)
                    && cluster.principals().stream().noneMatch(p -> p.toString().equals(entry.principal()))) {
                throw new IllegalArgumentException("rule " + number + " is for " + entry.principal()
                        + ", who is not in virtual cluster '" + cluster.name() + "'");
            }
            real.add(new AclBinding(AclPatterns.real(cluster.names(), rule.pattern()), entry));
        }
        return new AclRules(real);
    }

    /** One virtual cluster's rules joined with the shared ones, and the two sets it was made of. */
    private record Joined(AclRules shared, AclRules own, Optional<AclRules> both) {
    }
}
