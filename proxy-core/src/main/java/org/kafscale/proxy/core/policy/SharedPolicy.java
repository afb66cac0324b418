package org.kafscale.proxy.core.policy;

import java.util.Objects;

/** A policy every connection shares: the chain registers its hooks once, when it is built. */
record SharedPolicy(Policy policy) implements PolicyFactory {
    SharedPolicy {
        Objects.requireNonNull(policy, "policy");
    }

    @Override
    public Policy create(PolicyConnection connection) {
        return policy;
    }
}
