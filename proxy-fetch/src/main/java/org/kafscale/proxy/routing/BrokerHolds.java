package org.kafscale.proxy.routing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How long a broker may legitimately hold a request of one client connection beyond the request
 * timeout, so neither the connection's deadline nor the broker channel gives up on it early:
 * a Fetch or ShareFetch its max wait; a JoinGroup until the rebalance completes (its rebalance timeout; v0 has
 * only the session timeout); a SyncGroup while the leader computes the assignment, which the
 * coordinator bounds by the same rebalance timeout. SyncGroup does not carry that timeout, so it
 * is remembered from the member's JoinGroup, which a client sends on the same connection.
 *
 * <p>Confined to the connection's event loop. A connection joins few groups; the memory is
 * bounded at {@link #MAX_GROUPS}, dropping the oldest, so a client naming endless groups holds
 * nothing more.
 */
final class BrokerHolds {
    /** Groups whose rebalance timeout one connection remembers. */
    static final int MAX_GROUPS = 32;
    /**
     * The hold of a SyncGroup whose JoinGroup this connection did not see: Kafka's default
     * rebalance timeout ({@code max.poll.interval.ms}, 5 minutes).
     */
    static final long DEFAULT_REBALANCE_MILLIS = 300_000;

    private final Map<String, Long> rebalanceMillisByGroup = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_GROUPS;
        }
    };

    /** The hold for this request; 0 for a request the broker answers at once. */
    long holdMillis(ApiMessage body) {
        if (body instanceof FetchRequestData fetch) {
            return Math.max(0, fetch.maxWaitMs());
        }
        if (body instanceof ShareFetchRequestData shareFetch) {
            return Math.max(0, shareFetch.maxWaitMs());
        }
        if (body instanceof JoinGroupRequestData join) {
            long rebalance = Math.max(0, Math.max(join.rebalanceTimeoutMs(), join.sessionTimeoutMs()));
            rebalanceMillisByGroup.remove(join.groupId());
            rebalanceMillisByGroup.put(join.groupId(), rebalance);
            return rebalance;
        }
        if (body instanceof SyncGroupRequestData sync) {
            return rebalanceMillisByGroup.getOrDefault(sync.groupId(), DEFAULT_REBALANCE_MILLIS);
        }
        return 0;
    }
}
