package org.kafscale.proxy.core.tenant;

/**
 * The APIs a virtual cluster is never served, each with why: what they read or change is the
 * real cluster's as a whole (its quorum, its features, its disks, its SCRAM users), or they carry no name a prefix could keep to one tenant. A tenant's own users and
 * quotas are the proxy's, set in the gateway file, not the brokers'.
 */
public final class RefusedIsolations {
    public static final Isolation DESCRIBE_QUORUM = Isolation.refused("the real cluster's controllers and their "
            + "quorum: nothing of a tenant's to show");
    public static final Isolation UPDATE_FEATURES = Isolation.refused("feature levels are the real cluster's: a "
            + "change would reach every tenant");
    public static final Isolation LOG_DIRS = Isolation.refused("a broker's disks hold every tenant's replicas; moving "
            + "or listing them is the operator's");
    public static final Isolation LIST_CONFIG_RESOURCES = Isolation.refused("lists brokers', groups' and client "
            + "metrics' resources of the real cluster, which a prefix does not keep to one tenant");
    public static final Isolation WRITE_TXN_MARKERS = Isolation.refused("markers name producer ids, which belong "
            + "to no prefix: a tenant could end another's transactions");
    public static final Isolation SCRAM_CREDENTIALS = Isolation.refused("the brokers' SCRAM users are the real "
            + "cluster's; a virtual cluster's users are the proxy's, in its credentials file");

    private RefusedIsolations() {
    }
}
