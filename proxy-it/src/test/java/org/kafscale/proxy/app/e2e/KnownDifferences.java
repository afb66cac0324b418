package org.kafscale.proxy.app.e2e;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The one list of the ways an answer through the proxy may differ from the broker's own, each
 * with its reason. Anything not listed here is a failure of {@code EveryApiIT}.
 */
final class KnownDifferences {
    /** Parts of an answer left out of the shape comparison, for an advertise mode or both ("*"). */
    record SkippedPath(ApiKeys key, String mode, String path, String reason) {
    }

    /** An error the proxy answers where the broker answers another. */
    record ErrorDifference(ApiKeys key, String mode, Errors direct, Errors proxy, String reason) {
    }

    private static final String SINGLE_ADDRESS = "single mode shows one node 0 that leads and holds every partition: "
            + "the price of one address (docs/architecture.md, advertise modes)";
    private static final String FRESH_ID = "each call's topic is a new one, with its own id";
    private static final String ACQUIRED_ONCE = "not the proxy: a share group hands each record to one member's "
            + "fetch, so whichever of the two same-member fetches comes first acquires what is there";
    private static final String MERGED_LISTING = "the proxy lists every broker's part (one address serves them all); "
            + "the direct answer is one broker's part";

    static final List<SkippedPath> SKIPPED = List.of(
            new SkippedPath(ApiKeys.API_VERSIONS, "*", "apiKeys",
                    "the proxy advertises the keys it serves (ApiCatalog), intersected with the brokers"),
            new SkippedPath(ApiKeys.METADATA, "single", "brokers", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.METADATA, "single", "topics[].partitions[].replicaNodes", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.METADATA, "single", "topics[].partitions[].isrNodes", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.METADATA, "single", "topics[].partitions[].offlineReplicas", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.DESCRIBE_CLUSTER, "single", "brokers", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "single", "topics[].partitions[].replicaNodes", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "single", "topics[].partitions[].isrNodes", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "single", "topics[].partitions[].offlineReplicas", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "single", "topics[].partitions[].eligibleLeaderReplicas",
                    SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "single", "topics[].partitions[].lastKnownElr", SINGLE_ADDRESS),
            new SkippedPath(ApiKeys.LIST_GROUPS, "*", "groups", MERGED_LISTING),
            // Not the proxy: the broker gives every validate-only create, and every new topic, a new id
            new SkippedPath(ApiKeys.CREATE_TOPICS, "*", "topics[].topicId", FRESH_ID),
            new SkippedPath(ApiKeys.DELETE_TOPICS, "*", "responses[].topicId", FRESH_ID),
            new SkippedPath(ApiKeys.LIST_TRANSACTIONS, "*", "transactionStates", MERGED_LISTING),
            new SkippedPath(ApiKeys.LIST_TRANSACTIONS, "*", "unknownStateFilters", MERGED_LISTING),
            new SkippedPath(ApiKeys.SHARE_FETCH, "*", "responses[].partitions[].acquiredRecords", ACQUIRED_ONCE));

    static final List<ErrorDifference> ERRORS = List.of();

    /** Keys whose answers name controllers (not brokers a client connects to): their ids are not checked. */
    static final Set<ApiKeys> NAME_CONTROLLERS = Set.of(ApiKeys.DESCRIBE_QUORUM);

    private KnownDifferences() {
    }

    static Predicate<String> skippedPaths(ApiKeys key, String mode) {
        List<String> paths = SKIPPED.stream().filter(s -> s.key() == key && applies(s.mode(), mode))
                .map(SkippedPath::path).toList();
        return paths::contains;
    }

    /** The proxy's error counts with every listed difference mapped back to the broker's error. */
    static Map<Errors, Integer> asTheBrokerWouldSay(ApiKeys key, String mode, Map<Errors, Integer> proxy) {
        Map<Errors, Integer> mapped = new EnumMap<>(Errors.class);
        proxy.forEach((error, count) -> {
            Errors direct = ERRORS.stream().filter(d -> d.key() == key && applies(d.mode(), mode) && d.proxy() == error)
                    .map(ErrorDifference::direct).findFirst().orElse(error);
            mapped.merge(direct, count, Integer::sum);
        });
        return mapped;
    }

    private static boolean applies(String listed, String mode) {
        return listed.equals("*") || listed.equals(mode);
    }
}
