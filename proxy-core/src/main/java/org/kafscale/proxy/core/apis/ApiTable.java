package org.kafscale.proxy.core.apis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Every API key kafka-clients knows, in words: how the proxy serves it, or why it refuses it. It
 * is the table {@code docs/architecture.md} carries, and a test holds it to {@link ProxiedApis}:
 * a key is described as served exactly when the proxy advertises it, so the docs cannot drift
 * from the code (and a new key in a kafka-clients upgrade must be placed on one side).
 */
public final class ApiTable {
    private static final Map<ApiKeys, String> SERVED = new EnumMap<>(ApiKeys.class);
    private static final Map<ApiKeys, String> REFUSED = new EnumMap<>(ApiKeys.class);

    private static void served(ApiKeys api, String how) {
        SERVED.put(api, how);
    }

    private static void refused(String why, ApiKeys... apis) {
        for (ApiKeys api : apis) {
            REFUSED.put(api, why);
        }
    }

    static {
        served(ApiKeys.API_VERSIONS, "answered here: the versions kafka-clients and every broker support, "
                + "and the features finalized on every broker");
        served(ApiKeys.METADATA, "answered here from the topology, every node at the proxy's address "
                + "(single: node 0 leads everything; brokers: the real ids; ports: the real ids, each at its "
                + "own port)");
        served(ApiKeys.FIND_COORDINATOR, "answered here: the coordinator the topology names (an etcd lease, "
                + "else a broker's own FindCoordinator), at the proxy's address");
        served(ApiKeys.DESCRIBE_CLUSTER, "answered here from the topology, like Metadata");
        served(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "answered here from the topology, like Metadata, with its cursor");

        served(ApiKeys.PRODUCE, "split by partition owner and merged; acks=0 not awaited; batches with a "
                + "producer id sent once");
        served(ApiKeys.FETCH, "split by partition owner, sessionless, merged within the request's max_bytes; "
                + "the rack is not forwarded, so the leader serves");
        served(ApiKeys.LIST_OFFSETS, "split by partition owner and merged");
        served(ApiKeys.OFFSET_FOR_LEADER_EPOCH, "split by partition owner and merged");
        served(ApiKeys.DELETE_RECORDS, "split by partition owner and merged");
        served(ApiKeys.DESCRIBE_PRODUCERS, "split by partition owner (the leader) and merged; on a broker's own "
                + "port (advertise mode ports) to that broker, so the Admin's brokerId option reaches a follower");
        served(ApiKeys.WRITE_TXN_MARKERS, "split by partition owner and merged (Admin.abortTransaction)");

        served(ApiKeys.JOIN_GROUP, "to the group's coordinator; may be held for the rebalance timeout");
        served(ApiKeys.SYNC_GROUP, "to the group's coordinator; may be held for the rebalance timeout its "
                + "JoinGroup named");
        served(ApiKeys.HEARTBEAT, "to the group's coordinator");
        served(ApiKeys.LEAVE_GROUP, "to the group's coordinator");
        served(ApiKeys.OFFSET_COMMIT, "to the group's coordinator");
        served(ApiKeys.OFFSET_FETCH, "to the group's coordinator; v8+ naming several groups split per "
                + "coordinator and merged in request order");
        served(ApiKeys.OFFSET_DELETE, "to the group's coordinator");
        served(ApiKeys.DESCRIBE_GROUPS, "split per coordinator, merged in request order");
        served(ApiKeys.DELETE_GROUPS, "split per coordinator, merged in request order");
        served(ApiKeys.CONSUMER_GROUP_HEARTBEAT, "to the group's coordinator");
        served(ApiKeys.CONSUMER_GROUP_DESCRIBE, "split per coordinator, merged in request order");
        served(ApiKeys.TXN_OFFSET_COMMIT, "to the group's coordinator");
        served(ApiKeys.LIST_GROUPS, "to every broker, lists merged, each group once");

        served(ApiKeys.INIT_PRODUCER_ID, "to the transactional id's coordinator; without one, any broker");
        served(ApiKeys.ADD_PARTITIONS_TO_TXN, "to the transactional id's coordinator");
        served(ApiKeys.ADD_OFFSETS_TO_TXN, "to the transactional id's coordinator");
        served(ApiKeys.END_TXN, "to the transactional id's coordinator");
        served(ApiKeys.DESCRIBE_TRANSACTIONS, "split per transaction coordinator, merged in request order");
        served(ApiKeys.LIST_TRANSACTIONS, "to every broker, lists merged, each transaction once");

        served(ApiKeys.CREATE_TOPICS, "to any broker (it forwards to the controller); answered once the "
                + "topology shows the change");
        served(ApiKeys.DELETE_TOPICS, "to any broker; answered once the topology shows the change");
        served(ApiKeys.CREATE_PARTITIONS, "to any broker; answered once the topology shows the change");
        served(ApiKeys.DESCRIBE_CONFIGS, "split by resource: BROKER and BROKER_LOGGER to the broker they name, "
                + "others to any broker; broker addresses in values hidden");
        served(ApiKeys.ALTER_CONFIGS, "split by resource, as DescribeConfigs");
        served(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "split by resource, as DescribeConfigs");
        served(ApiKeys.DESCRIBE_ACLS, "to any broker");
        served(ApiKeys.CREATE_ACLS, "to any broker");
        served(ApiKeys.DELETE_ACLS, "to any broker");
        served(ApiKeys.DESCRIBE_CLIENT_QUOTAS, "to any broker");
        served(ApiKeys.ALTER_CLIENT_QUOTAS, "to any broker");
        served(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "to any broker");
        served(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "to any broker");
        served(ApiKeys.ELECT_LEADERS, "to any broker");
        served(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "to any broker (real broker ids: see the single-mode limits)");
        served(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "to any broker");
        served(ApiKeys.UPDATE_FEATURES, "to any broker");
        served(ApiKeys.DESCRIBE_QUORUM, "to any broker; controller endpoints rewritten to the proxy's address");
        served(ApiKeys.LIST_CONFIG_RESOURCES, "to any broker");
        served(ApiKeys.DESCRIBE_LOG_DIRS, "advertise mode ports only, on a broker's own port: to that broker "
                + "(about its disks); elsewhere not advertised and closed, since no connection names a broker");
        served(ApiKeys.ALTER_REPLICA_LOG_DIRS, "as DescribeLogDirs: on a broker's own port, to that broker");

        served(ApiKeys.SHARE_GROUP_HEARTBEAT, "to the share group's coordinator");
        served(ApiKeys.SHARE_GROUP_DESCRIBE, "split per coordinator, merged in request order");
        served(ApiKeys.SHARE_FETCH, "split by partition owner, one share session per broker kept for the "
                + "client's session, acknowledgements to the broker that delivered");
        served(ApiKeys.SHARE_ACKNOWLEDGE, "split by partition owner, on the client's per-broker share sessions");
        served(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, "split per coordinator, merged in request order");
        served(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, "to the share group's coordinator");
        served(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, "to the share group's coordinator");
        served(ApiKeys.STREAMS_GROUP_HEARTBEAT, "to the streams group's coordinator");
        served(ApiKeys.STREAMS_GROUP_DESCRIBE, "split per coordinator, merged in request order");

        refused("answered UNSUPPORTED_SASL_MECHANISM with no mechanisms, then closed, on a listener without "
                + "SASL; with `KAFSCALE_PROXY_SASL_MECHANISMS` the listener answers it itself (the enabled "
                + "mechanisms) and advertises it", ApiKeys.SASL_HANDSHAKE);
        refused("closed on a listener without SASL; with `KAFSCALE_PROXY_SASL_MECHANISMS` the listener runs the "
                + "exchange itself (never a broker)", ApiKeys.SASL_AUTHENTICATE);
        refused("closed: removed from Kafka, no version exists", ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA,
                ApiKeys.UPDATE_METADATA, ApiKeys.CONTROLLED_SHUTDOWN);
        refused("closed: controller-only (KRaft quorum and broker lifecycle)", ApiKeys.VOTE,
                ApiKeys.BEGIN_QUORUM_EPOCH, ApiKeys.END_QUORUM_EPOCH, ApiKeys.ALTER_PARTITION, ApiKeys.ENVELOPE,
                ApiKeys.FETCH_SNAPSHOT, ApiKeys.BROKER_REGISTRATION, ApiKeys.BROKER_HEARTBEAT,
                ApiKeys.ALLOCATE_PRODUCER_IDS, ApiKeys.CONTROLLER_REGISTRATION, ApiKeys.ASSIGN_REPLICAS_TO_DIRS,
                ApiKeys.UPDATE_RAFT_VOTER);
        refused("closed: broker-to-broker share-group state", ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
                ApiKeys.READ_SHARE_GROUP_STATE, ApiKeys.WRITE_SHARE_GROUP_STATE, ApiKeys.DELETE_SHARE_GROUP_STATE,
                ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY);
        refused("closed: a broker refuses delegation tokens on the unauthenticated connections the proxy "
                + "uses", ApiKeys.CREATE_DELEGATION_TOKEN, ApiKeys.RENEW_DELEGATION_TOKEN,
                ApiKeys.EXPIRE_DELEGATION_TOKEN, ApiKeys.DESCRIBE_DELEGATION_TOKEN);
        refused("closed: a broker ties telemetry to the connection it subscribed on; clients go on "
                + "without it", ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, ApiKeys.PUSH_TELEMETRY);
        refused("closed: quorum membership is changed with --bootstrap-controller, not through brokers",
                ApiKeys.ADD_RAFT_VOTER, ApiKeys.REMOVE_RAFT_VOTER);
        refused("closed: unregistering a broker is an operator's call to the controller "
                + "(kafka-cluster --bootstrap-controller)", ApiKeys.UNREGISTER_BROKER);
    }

    private ApiTable() {
    }

    /** How the proxy serves {@code api}, for a key it advertises. */
    public static Optional<String> howServed(ApiKeys api) {
        return Optional.ofNullable(SERVED.get(api));
    }

    /** Why the proxy refuses {@code api}, for a key it does not advertise. */
    public static Optional<String> whyRefused(ApiKeys api) {
        return Optional.ofNullable(REFUSED.get(api));
    }

    /** The keys described as served. */
    public static Map<ApiKeys, String> served() {
        return Collections.unmodifiableMap(SERVED);
    }

    /** The Markdown table: every key, in id order. */
    public static String markdown() {
        StringBuilder table = new StringBuilder("| Key | API | Through the proxy |\n|---|---|---|\n");
        for (ApiKeys api : ApiKeys.values()) {
            String text = howServed(api).orElseGet(() -> whyRefused(api).map(why -> "**refused** — " + why)
                    .orElse("**undescribed**"));
            table.append("| ").append(api.id).append(" | ").append(api.name).append(" | ").append(text).append(" |\n");
        }
        return table.toString();
    }
}
