package org.kafscale.proxy.core.policy;

/**
 * Makes a policy for each client connection, as it opens, on its event loop: for a policy that
 * keeps state per connection (a tenant, a quota's account) in plain fields, confined to that
 * loop. A policy made here that is {@link AutoCloseable} is closed when its connection closes
 * (answers still in flight then may reach its answer hooks after that: they are written nowhere).
 * A policy that keeps nothing per connection is {@link #shared}: registered once for all.
 */
@FunctionalInterface
public interface PolicyFactory {
    /** This connection's policy; its hooks are registered at once, so a bad registration fails here. */
    Policy create(PolicyConnection connection);

    /** One policy instance for every connection. */
    static PolicyFactory shared(Policy policy) {
        return new SharedPolicy(policy);
    }
}
