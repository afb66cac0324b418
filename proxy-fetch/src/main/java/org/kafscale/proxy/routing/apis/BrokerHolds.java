package org.kafscale.proxy.routing.apis;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;

/**
 * What one client connection remembers to size a broker's {@link Hold} of its group requests: a
 * JoinGroup is held until the rebalance completes (its rebalance timeout; v0 has only the session
 * timeout); a SyncGroup while the leader computes the assignment, which the coordinator bounds by
 * the same rebalance timeout. SyncGroup does not carry that timeout, so it is remembered from the
 * member's JoinGroup, which a client sends on the same connection. (A Fetch's hold, its max wait,
 * needs no memory: see its entry in {@link Apis}.)
 *
 * <p>Confined to the connection's event loop. A connection joins few groups; the memory is
 * bounded at {@link #MAX_GROUPS}, dropping the oldest, so a client naming endless groups holds
 * nothing more.
 */
public final class BrokerHolds {
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

    /** A JoinGroup's hold, remembered for the member's SyncGroup. */
    public long joining(JoinGroupRequestData join) {
        long rebalance = Math.max(0, Math.max(join.rebalanceTimeoutMs(), join.sessionTimeoutMs()));
        rebalanceMillisByGroup.remove(join.groupId());
        rebalanceMillisByGroup.put(join.groupId(), rebalance);
        return rebalance;
    }

    /** A SyncGroup's hold: the rebalance timeout its group's JoinGroup named on this connection. */
    public long syncing(SyncGroupRequestData sync) {
        return rebalanceMillisByGroup.getOrDefault(sync.groupId(), DEFAULT_REBALANCE_MILLIS);
    }
}
