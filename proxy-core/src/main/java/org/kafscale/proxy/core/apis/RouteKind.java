package org.kafscale.proxy.core.apis;

/** How the proxy serves one API. */
public enum RouteKind {
    /**
     * Answered by the proxy from its topology (ApiVersions, Metadata, FindCoordinator,
     * DescribeCluster, DescribeTopicPartitions).
     */
    LOCAL,
    /** Goes to the owners of the partitions it names. */
    PARTITIONS,
    /** Goes to the coordinator of the group it names. */
    GROUP_COORDINATOR,
    /** Goes to the coordinator of the transactional id it names. */
    TRANSACTION_COORDINATOR,
    /**
     * An admin API whose resources or answer are a broker's own: broker config resources go to the
     * broker they name, per-broker listings to every broker, quorum endpoints are rewritten
     * ({@code routing.admin}).
     */
    ADMIN,
    /**
     * About the one broker the connection addresses (its disks): served only on a connection that
     * came in on a broker's own port (advertise mode ports), to that broker. On any other
     * connection the key is neither advertised nor served, as no broker can be named there.
     */
    ADDRESSED_BROKER,
    /** Any live broker can answer it. */
    ANY_BROKER
}
