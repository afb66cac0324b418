package org.kafscale.proxy.core.apis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Every API key kafka-clients knows, each with its {@link ApiSpec}: where the proxy serves it
 * (answered here, forwarded, only on a broker's own port) or why it refuses it, in the words of
 * the API table of {@code docs/architecture.md}. The dispatcher refuses, and ApiVersions leaves
 * out, every key not served on the connection; the authorizer checks only served keys. How a
 * forwarded key is routed is its route spec in proxy-fetch ({@code routing.apis.Apis}), which a
 * test there holds to this catalog.
 *
 * <p>Left out on purpose, each with its reason below: SASL (never forwarded; on a SASL listener
 * the listener's own gate, {@code core.security.sasl.SaslGate}, answers it), inter-broker and
 * controller APIs (but WriteTxnMarkers, which {@code kafka-transactions abort} sends to partition
 * leaders), and client telemetry, which a broker ties to the connection it was subscribed on.
 * APIs about one broker's disks (DescribeLogDirs) are served only on a connection that addresses
 * one broker. A key a kafka-clients upgrade adds has no spec until it is placed here, and a test
 * fails until then.
 */
public final class ApiCatalog {
    private static final Map<ApiKeys, ApiSpec> SPECS = new EnumMap<>(ApiKeys.class);

    static {
        answeredHere(ApiKeys.API_VERSIONS, "answered here: the versions kafka-clients and every broker support, "
                + "and the features finalized on every broker");
        answeredHere(ApiKeys.METADATA, "answered here from the topology, every node at the proxy's address "
                + "(single: node 0 leads everything; brokers: the real ids; ports: the real ids, each at its "
                + "own port)");
        answeredHere(ApiKeys.FIND_COORDINATOR, "answered here: the coordinator the topology names (an etcd lease, "
                + "else a broker's own FindCoordinator), at the proxy's address");
        answeredHere(ApiKeys.DESCRIBE_CLUSTER, "answered here from the topology, like Metadata");
        answeredHere(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "answered here from the topology, like Metadata, with its cursor");

        forwarded(ApiKeys.PRODUCE, "split by partition owner and merged; acks=0 not awaited; batches with a "
                + "producer id sent once");
        forwarded(ApiKeys.FETCH, "split by partition owner, sessionless, merged within the request's max_bytes; "
                + "the rack is not forwarded, so the leader serves");
        forwarded(ApiKeys.LIST_OFFSETS, "split by partition owner and merged");
        forwarded(ApiKeys.OFFSET_FOR_LEADER_EPOCH, "split by partition owner and merged");
        forwarded(ApiKeys.DELETE_RECORDS, "split by partition owner and merged");
        forwarded(ApiKeys.DESCRIBE_PRODUCERS, "split by partition owner (the leader) and merged; on a broker's own "
                + "port (advertise mode ports) to that broker, so the Admin's brokerId option reaches a follower");
        forwarded(ApiKeys.WRITE_TXN_MARKERS, "split by partition owner and merged (Admin.abortTransaction)");

        forwarded(ApiKeys.JOIN_GROUP, "to the group's coordinator; may be held for the rebalance timeout");
        forwarded(ApiKeys.SYNC_GROUP, "to the group's coordinator; may be held for the rebalance timeout its "
                + "JoinGroup named");
        forwarded(ApiKeys.HEARTBEAT, "to the group's coordinator");
        forwarded(ApiKeys.LEAVE_GROUP, "to the group's coordinator");
        forwarded(ApiKeys.OFFSET_COMMIT, "to the group's coordinator");
        forwarded(ApiKeys.OFFSET_FETCH, "to the group's coordinator; v8+ naming several groups split per "
                + "coordinator and merged in request order");
        forwarded(ApiKeys.OFFSET_DELETE, "to the group's coordinator");
        forwarded(ApiKeys.DESCRIBE_GROUPS, "split per coordinator, merged in request order");
        forwarded(ApiKeys.DELETE_GROUPS, "split per coordinator, merged in request order");
        forwarded(ApiKeys.CONSUMER_GROUP_HEARTBEAT, "to the group's coordinator");
        forwarded(ApiKeys.CONSUMER_GROUP_DESCRIBE, "split per coordinator, merged in request order");
        forwarded(ApiKeys.TXN_OFFSET_COMMIT, "to the group's coordinator");
        forwarded(ApiKeys.LIST_GROUPS, "to every broker, lists merged, each group once");

        forwarded(ApiKeys.INIT_PRODUCER_ID, "to the transactional id's coordinator; without one, any broker");
        forwarded(ApiKeys.ADD_PARTITIONS_TO_TXN, "to the transactional id's coordinator");
        forwarded(ApiKeys.ADD_OFFSETS_TO_TXN, "to the transactional id's coordinator");
        forwarded(ApiKeys.END_TXN, "to the transactional id's coordinator");
        forwarded(ApiKeys.DESCRIBE_TRANSACTIONS, "split per transaction coordinator, merged in request order");
        forwarded(ApiKeys.LIST_TRANSACTIONS, "to every broker, lists merged, each transaction once");

        forwarded(ApiKeys.CREATE_TOPICS, "to any broker (it forwards to the controller); answered once the "
                + "topology shows the change");
        forwarded(ApiKeys.DELETE_TOPICS, "to any broker; answered once the topology shows the change");
        forwarded(ApiKeys.CREATE_PARTITIONS, "to any broker; answered once the topology shows the change");
        forwarded(ApiKeys.DESCRIBE_CONFIGS, "split by resource: BROKER and BROKER_LOGGER to the broker they name, "
                + "others to any broker; broker addresses in values hidden");
        forwarded(ApiKeys.ALTER_CONFIGS, "split by resource, as DescribeConfigs");
        forwarded(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "split by resource, as DescribeConfigs");
        forwarded(ApiKeys.DESCRIBE_ACLS, "to any broker");
        forwarded(ApiKeys.CREATE_ACLS, "to any broker");
        forwarded(ApiKeys.DELETE_ACLS, "to any broker");
        forwarded(ApiKeys.DESCRIBE_CLIENT_QUOTAS, "to any broker");
        forwarded(ApiKeys.ALTER_CLIENT_QUOTAS, "to any broker");
        forwarded(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "to any broker");
        forwarded(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "to any broker");
        forwarded(ApiKeys.ELECT_LEADERS, "to any broker");
        forwarded(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "to any broker (real broker ids: see the single-mode limits)");
        forwarded(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "to any broker");
        forwarded(ApiKeys.UPDATE_FEATURES, "to any broker");
        forwarded(ApiKeys.DESCRIBE_QUORUM, "to any broker; controller endpoints rewritten to the proxy's address");
        forwarded(ApiKeys.LIST_CONFIG_RESOURCES, "to any broker");
        addressedBrokerOnly(ApiKeys.DESCRIBE_LOG_DIRS, "advertise mode ports only, on a broker's own port: to that broker "
                + "(about its disks); elsewhere not advertised and closed, since no connection names a broker");
        addressedBrokerOnly(ApiKeys.ALTER_REPLICA_LOG_DIRS, "as DescribeLogDirs: on a broker's own port, to that broker");

        forwarded(ApiKeys.SHARE_GROUP_HEARTBEAT, "to the share group's coordinator");
        forwarded(ApiKeys.SHARE_GROUP_DESCRIBE, "split per coordinator, merged in request order");
        forwarded(ApiKeys.SHARE_FETCH, "split by partition owner, one share session per broker kept for the "
                + "client's session, acknowledgements to the broker that delivered");
        forwarded(ApiKeys.SHARE_ACKNOWLEDGE, "split by partition owner, on the client's per-broker share sessions");
        forwarded(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, "split per coordinator, merged in request order");
        forwarded(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, "to the share group's coordinator");
        forwarded(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, "to the share group's coordinator");
        forwarded(ApiKeys.STREAMS_GROUP_HEARTBEAT, "to the streams group's coordinator");
        forwarded(ApiKeys.STREAMS_GROUP_DESCRIBE, "split per coordinator, merged in request order");

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

    private ApiCatalog() {
    }

    /** The spec of {@code api}; empty only for a key no one has placed yet (a test fails then). */
    public static Optional<ApiSpec> spec(ApiKeys api) {
        return Optional.ofNullable(SPECS.get(api));
    }

    /**
     * Whether {@code api} is advertised and served on a connection that does ({@code addressesBroker})
     * or does not come in on one broker's own port.
     */
    public static boolean servedOn(ApiKeys api, boolean addressesBroker) {
        return spec(api).map(spec -> spec.servedOn(addressesBroker)).orElse(false);
    }

    /** Whether {@code api} is served on some connection. */
    public static boolean served(ApiKeys api) {
        return spec(api).map(ApiSpec::served).orElse(false);
    }

    /** Every placed key with its spec, in id order. */
    public static Map<ApiKeys, ApiSpec> all() {
        return Collections.unmodifiableMap(SPECS);
    }

    /** The Markdown table of {@code docs/architecture.md}: every key, in id order. */
    public static String markdown() {
        StringBuilder table = new StringBuilder("| Key | API | Through the proxy |\n|---|---|---|\n");
        for (ApiKeys api : ApiKeys.values()) {
            String text = spec(api).map(ApiSpec::docRow).orElse("**undescribed**");
            table.append("| ").append(api.id).append(" | ").append(api.name).append(" | ").append(text).append(" |\n");
        }
        return table.toString();
    }

    private static void answeredHere(ApiKeys api, String how) {
        place(new ApiSpec(api, ApiSpec.Serving.ANSWERED_HERE, how));
    }

    private static void forwarded(ApiKeys api, String how) {
        place(new ApiSpec(api, ApiSpec.Serving.FORWARDED, how));
    }

    private static void addressedBrokerOnly(ApiKeys api, String how) {
        place(new ApiSpec(api, ApiSpec.Serving.ADDRESSED_BROKER_ONLY, how));
    }

    private static void refused(String why, ApiKeys... apis) {
        for (ApiKeys api : apis) {
            place(new ApiSpec(api, ApiSpec.Serving.REFUSED, why));
        }
    }

    private static void place(ApiSpec spec) {
        if (SPECS.put(spec.api(), spec) != null) {
            throw new IllegalStateException(spec.api() + " is placed twice");
        }
    }
}
