package org.kafscale.proxy.core.apis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The one table of the APIs the proxy serves and how each is routed. ApiVersions advertises
 * exactly these (intersected with the brokers); any other key a client sends is refused by
 * {@code RequestDispatcher} (the connection closes with a log line, as a broker does), never
 * forwarded.
 *
 * <p>Left out on purpose (each with its reason in {@link ApiTable}): SASL (never forwarded; on a
 * SASL listener the listener's own gate, {@code core.security.sasl.SaslGate}, answers it), inter-broker and controller APIs (but WriteTxnMarkers, which
 * {@code kafka-transactions abort} sends to partition leaders), and client telemetry, which a
 * broker ties to the connection it was subscribed on. APIs about one broker's disks
 * (DescribeLogDirs, {@link RouteKind#ADDRESSED_BROKER}) are served only on a connection that
 * addresses one broker ({@link #servedOn}).
 */
public final class ProxiedApis {
    private static final Map<ApiKeys, RouteKind> ROUTES;

    static {
        Map<ApiKeys, RouteKind> routes = new EnumMap<>(ApiKeys.class);
        routes.put(ApiKeys.API_VERSIONS, RouteKind.LOCAL);
        routes.put(ApiKeys.METADATA, RouteKind.LOCAL);
        routes.put(ApiKeys.FIND_COORDINATOR, RouteKind.LOCAL);
        routes.put(ApiKeys.DESCRIBE_CLUSTER, RouteKind.LOCAL);
        routes.put(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, RouteKind.LOCAL);

        routes.put(ApiKeys.PRODUCE, RouteKind.PARTITIONS);
        routes.put(ApiKeys.FETCH, RouteKind.PARTITIONS);
        routes.put(ApiKeys.LIST_OFFSETS, RouteKind.PARTITIONS);
        routes.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, RouteKind.PARTITIONS);
        routes.put(ApiKeys.DELETE_RECORDS, RouteKind.PARTITIONS);
        routes.put(ApiKeys.DESCRIBE_PRODUCERS, RouteKind.PARTITIONS);
        routes.put(ApiKeys.WRITE_TXN_MARKERS, RouteKind.PARTITIONS);
        routes.put(ApiKeys.SHARE_FETCH, RouteKind.PARTITIONS);
        routes.put(ApiKeys.SHARE_ACKNOWLEDGE, RouteKind.PARTITIONS);

        routes.put(ApiKeys.JOIN_GROUP, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.SYNC_GROUP, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.HEARTBEAT, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.LEAVE_GROUP, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.OFFSET_COMMIT, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.OFFSET_FETCH, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.OFFSET_DELETE, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.DESCRIBE_GROUPS, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.DELETE_GROUPS, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.TXN_OFFSET_COMMIT, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.SHARE_GROUP_HEARTBEAT, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.SHARE_GROUP_DESCRIBE, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.STREAMS_GROUP_HEARTBEAT, RouteKind.GROUP_COORDINATOR);
        routes.put(ApiKeys.STREAMS_GROUP_DESCRIBE, RouteKind.GROUP_COORDINATOR);

        routes.put(ApiKeys.INIT_PRODUCER_ID, RouteKind.TRANSACTION_COORDINATOR);
        routes.put(ApiKeys.ADD_PARTITIONS_TO_TXN, RouteKind.TRANSACTION_COORDINATOR);
        routes.put(ApiKeys.ADD_OFFSETS_TO_TXN, RouteKind.TRANSACTION_COORDINATOR);
        routes.put(ApiKeys.END_TXN, RouteKind.TRANSACTION_COORDINATOR);
        routes.put(ApiKeys.DESCRIBE_TRANSACTIONS, RouteKind.TRANSACTION_COORDINATOR);

        routes.put(ApiKeys.LIST_GROUPS, RouteKind.ADMIN);
        routes.put(ApiKeys.LIST_TRANSACTIONS, RouteKind.ADMIN);
        routes.put(ApiKeys.DESCRIBE_CONFIGS, RouteKind.ADMIN);
        routes.put(ApiKeys.ALTER_CONFIGS, RouteKind.ADMIN);
        routes.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, RouteKind.ADMIN);
        routes.put(ApiKeys.DESCRIBE_QUORUM, RouteKind.ADMIN);

        routes.put(ApiKeys.CREATE_TOPICS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.DELETE_TOPICS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.CREATE_PARTITIONS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.DESCRIBE_ACLS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.CREATE_ACLS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.DELETE_ACLS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.DESCRIBE_CLIENT_QUOTAS, RouteKind.ANY_BROKER);
        // Answered by any broker (it forwards writes to the controller); their answers name no broker.
        routes.put(ApiKeys.ALTER_CLIENT_QUOTAS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.ELECT_LEADERS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.LIST_PARTITION_REASSIGNMENTS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.UPDATE_FEATURES, RouteKind.ANY_BROKER);
        routes.put(ApiKeys.LIST_CONFIG_RESOURCES, RouteKind.ANY_BROKER);

        routes.put(ApiKeys.DESCRIBE_LOG_DIRS, RouteKind.ADDRESSED_BROKER);
        routes.put(ApiKeys.ALTER_REPLICA_LOG_DIRS, RouteKind.ADDRESSED_BROKER);
        ROUTES = Collections.unmodifiableMap(routes);
    }

    private ProxiedApis() {
    }

    /** How {@code api} is routed, or empty when the proxy does not advertise it. */
    public static Optional<RouteKind> routeOf(ApiKeys api) {
        return Optional.ofNullable(ROUTES.get(api));
    }

    /**
     * How {@code api} is routed on a connection that does ({@code addressesBroker}) or does not
     * come in on one broker's own port; empty when it is neither advertised nor served there.
     */
    public static Optional<RouteKind> servedOn(ApiKeys api, boolean addressesBroker) {
        return routeOf(api).filter(route -> addressesBroker || route != RouteKind.ADDRESSED_BROKER);
    }

    public static Map<ApiKeys, RouteKind> all() {
        return ROUTES;
    }
}
