package org.kafscale.proxy.core.security.authz;

import java.util.Optional;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Which ACL rules decide a principal's requests right now. One ACL file decides for everyone
 * ({@link AclAuthorizer}); with virtual clusters that have ACL files of their own, a tenant's
 * principal is decided by its virtual cluster's rules as well (see the tenant package). Read once
 * per request, so a reload never changes a decision half-way.
 */
public interface AclsInForce {

    /**
     * The rules for {@code principal}'s requests; empty when no ACL file applies to it, so nothing is checked.
     *
     * @param virtualCluster the virtual cluster its connection was placed in, if any
     */
    Optional<AclRules> rulesFor(KafkaPrincipal principal, Optional<String> virtualCluster);
}
