package org.kafscale.proxy.routing.apis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

/**
 * How long the proxy lets a broker hold a request: a member's SyncGroup waits as long as the
 * rebalance timeout its JoinGroup named on the same connection, so a leader that takes minutes to
 * assign does not make the proxy answer its followers REQUEST_TIMED_OUT.
 */
class BrokerHoldsTest {

    @Test
    void aSyncGroupIsHeldAsLongAsItsGroupsJoinSaidTheRebalanceMayTake() {
        BrokerHolds holds = new BrokerHolds();
        assertEquals(120_000, holds.joining(join("g", 120_000, 10_000)));
        assertEquals(120_000, holds.syncing(new SyncGroupRequestData().setGroupId("g")));
    }

    @Test
    void aSyncGroupWithoutAJoinOnThisConnectionGetsKafkasDefaultRebalanceTimeout() {
        BrokerHolds holds = new BrokerHolds();
        holds.joining(join("other", 1_000, 1_000));
        assertEquals(BrokerHolds.DEFAULT_REBALANCE_MILLIS, holds.syncing(new SyncGroupRequestData().setGroupId("g")));
    }

    @Test
    void theRememberedGroupsAreBoundedOldestFirst() {
        BrokerHolds holds = new BrokerHolds();
        for (int i = 0; i <= BrokerHolds.MAX_GROUPS; i++) {
            holds.joining(join("g" + i, 60_000 + i, 1_000));
        }
        assertEquals(BrokerHolds.DEFAULT_REBALANCE_MILLIS, holds.syncing(new SyncGroupRequestData().setGroupId("g0")));
        assertEquals(60_000 + BrokerHolds.MAX_GROUPS,
                holds.syncing(new SyncGroupRequestData().setGroupId("g" + BrokerHolds.MAX_GROUPS)));
    }

    @Test
    void aFetchOrShareFetchIsHeldItsMaxWaitAndAHeartbeatNotAtAll() {
        BrokerHolds holds = new BrokerHolds();
        assertEquals(500, hold(ApiKeys.FETCH, holds, new FetchRequestData().setMaxWaitMs(500)));
        assertEquals(400, hold(ApiKeys.SHARE_FETCH, holds, new ShareFetchRequestData().setMaxWaitMs(400)));
        assertEquals(0, hold(ApiKeys.HEARTBEAT, holds, new HeartbeatRequestData().setGroupId("g")));
    }

    @Test
    void joinAndSyncGroupSpecsAskTheConnectionsMemory() {
        BrokerHolds holds = new BrokerHolds();
        assertEquals(120_000, hold(ApiKeys.JOIN_GROUP, holds, join("g", 120_000, 10_000)));
        assertEquals(120_000, hold(ApiKeys.SYNC_GROUP, holds, new SyncGroupRequestData().setGroupId("g")));
    }

    /** The hold {@link Apis} gives a request of {@code api}. */
    @SuppressWarnings("unchecked")
    private static <Q extends ApiMessage> long hold(ApiKeys api, BrokerHolds holds, Q body) {
        RouteSpec.Typed<Q> spec = (RouteSpec.Typed<Q>) Apis.route(api).orElseThrow();
        return spec.hold().millis(holds, body);
    }

    private static JoinGroupRequestData join(String group, int rebalanceMillis, int sessionMillis) {
        return new JoinGroupRequestData().setGroupId(group).setRebalanceTimeoutMs(rebalanceMillis)
                .setSessionTimeoutMs(sessionMillis);
    }
}
