package org.kafscale.proxy.routing.engine;

import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.AdvertisedListener;

/**
 * KIP-951 leader hints, as clients must see them: a broker that answers NOT_LEADER_OR_FOLLOWER
 * may name the new leader ({@code CurrentLeader}) and its address ({@code NodeEndpoints}), so the
 * client can move on without a metadata round trip. The proxy passes the hint on with the leader
 * id the client knows (the real id in brokers mode, node 0 in single mode) at the proxy's own
 * address: a client never learns a broker's address.
 */
public final class LeaderHints {
    /** First versions that carry the hints. */
    private static final short PRODUCE_HINT_VERSION = 10;
    private static final short FETCH_HINT_VERSION = 16;

    private final AdvertisedListener advertised;

    public LeaderHints(AdvertisedListener advertised) {
        this.advertised = advertised;
    }

    /** The leader id a client should see for a real broker id (-1 stays unknown). */
    public int clientLeaderId(int brokerId) {
        if (brokerId < 0) {
            return -1;
        }
        return advertised.mode() == AdvertiseMode.SINGLE ? AdvertisedListener.SINGLE_NODE_ID : brokerId;
    }

    public boolean producePassesHints(short version) {
        return version >= PRODUCE_HINT_VERSION;
    }

    public boolean fetchPassesHints(short version) {
        return version >= FETCH_HINT_VERSION;
    }

    /** The broker's hint with the client's leader id; the caller adds the endpoint. */
    public ProduceResponseData.LeaderIdAndEpoch forClient(ProduceResponseData.LeaderIdAndEpoch brokerHint) {
        return new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(clientLeaderId(brokerHint.leaderId()))
                .setLeaderEpoch(brokerHint.leaderEpoch());
    }

    public FetchResponseData.LeaderIdAndEpoch forClient(FetchResponseData.LeaderIdAndEpoch brokerHint) {
        return new FetchResponseData.LeaderIdAndEpoch().setLeaderId(clientLeaderId(brokerHint.leaderId()))
                .setLeaderEpoch(brokerHint.leaderEpoch());
    }

    /** The proxy's address under each client leader id named by a hint. */
    public void addEndpoints(ProduceResponseData response, Set<Integer> clientLeaderIds) {
        for (int id : new TreeSet<>(clientLeaderIds)) {
            response.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(id)
                    .setHost(advertised.hostOf(id)).setPort(advertised.portOf(id)));
        }
    }

    public void addEndpoints(FetchResponseData response, Set<Integer> clientLeaderIds) {
        for (int id : new TreeSet<>(clientLeaderIds)) {
            response.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(id)
                    .setHost(advertised.hostOf(id)).setPort(advertised.portOf(id)));
        }
    }
}
