package org.kafscale.proxy.core.security.authz;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The ACL rules in force, swapped whole when the ACL file changes: event loops read the current
 * {@link AclRules} without locks, and a reload never leaves a half-applied set.
 */
public final class AclAuthorizer implements AclsInForce {
    /** Held as the Optional every request is answered with, so a request allocates none. */
    private final AtomicReference<Optional<AclRules>> rules;

    public AclAuthorizer(AclRules initial) {
        this.rules = new AtomicReference<>(Optional.of(initial));
    }

    /** The rules every decision is taken from now. */
    public AclRules rules() {
        return rules.get().orElseThrow();
    }

    /** The same rules for every principal. */
    @Override
    public Optional<AclRules> rulesFor(KafkaPrincipal principal, Optional<String> virtualCluster) {
        return rules.get();
    }

    /** Replaces every rule at once (a reload of the ACL file that parsed). */
    public void replace(AclRules next) {
        rules.set(Optional.of(next));
    }
}
