package org.kafscale.proxy.core.security.authz;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The ACL rules in force, swapped whole when the ACL file changes: event loops read the current
 * {@link AclRules} without locks, and a reload never leaves a half-applied set.
 */
public final class AclAuthorizer {
    private final AtomicReference<AclRules> rules;

    public AclAuthorizer(AclRules initial) {
        this.rules = new AtomicReference<>(initial);
    }

    /** The rules every decision is taken from now. */
    public AclRules rules() {
        return rules.get();
    }

    /** Replaces every rule at once (a reload of the ACL file that parsed). */
    public void replace(AclRules next) {
        rules.set(next);
    }
}
