package org.kafscale.proxy.routing.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.BrokerPorts;

class LeaderHintsTest {
    private static final LeaderHints BROKERS = new LeaderHints(new AdvertisedListener("proxy.example", 9092, AdvertiseMode.BROKERS));
    private static final LeaderHints SINGLE = new LeaderHints(new AdvertisedListener("proxy.example", 9092, AdvertiseMode.SINGLE));

    @Test
    void brokersModeKeepsTheRealLeaderIdAtTheProxysAddress() {
        // Given: a broker names broker 2 as the new leader
        ProduceResponseData.LeaderIdAndEpoch brokerHint = new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(7);
        ProduceResponseData answer = new ProduceResponseData();
        // When
        ProduceResponseData.LeaderIdAndEpoch hint = BROKERS.forClient(brokerHint);
        BROKERS.addEndpoints(answer, Set.of(hint.leaderId()));
        // Then
        assertEquals(2, hint.leaderId());
        assertEquals(7, hint.leaderEpoch());
        ProduceResponseData.NodeEndpoint endpoint = answer.nodeEndpoints().find(2);
        assertEquals("proxy.example", endpoint.host());
        assertEquals(9092, endpoint.port());
    }

    @Test
    void portsModeNamesTheRealLeaderAtItsOwnPort() {
        // Given: ports mode with ports for ids 0 to 3, and a broker naming broker 2, then broker 7, as leader
        LeaderHints ports = new LeaderHints(new AdvertisedListener("proxy.example", 9092, AdvertiseMode.PORTS,
                new BrokerPorts(9100, 4)));
        FetchResponseData answer = new FetchResponseData();
        // When
        ports.addEndpoints(answer, Set.of(ports.clientLeaderId(2), ports.clientLeaderId(7)));
        // Then: broker 2 at its own port; broker 7, past the range, at the bootstrap port
        assertEquals(9102, answer.nodeEndpoints().find(2).port());
        assertEquals(9092, answer.nodeEndpoints().find(7).port());
        assertEquals("proxy.example", answer.nodeEndpoints().find(2).host());
    }

    @Test
    void singleModeNamesNodeZeroWhoeverLeads() {
        FetchResponseData.LeaderIdAndEpoch brokerHint = new FetchResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(7);
        FetchResponseData answer = new FetchResponseData();
        FetchResponseData.LeaderIdAndEpoch hint = SINGLE.forClient(brokerHint);
        SINGLE.addEndpoints(answer, Set.of(hint.leaderId()));
        assertEquals(0, hint.leaderId());
        assertEquals(1, answer.nodeEndpoints().size());
        assertEquals("proxy.example", answer.nodeEndpoints().find(0).host());
    }

    @Test
    void anUnknownLeaderStaysUnknown() {
        assertEquals(-1, SINGLE.clientLeaderId(-1));
        assertEquals(-1, BROKERS.clientLeaderId(-1));
    }

    @Test
    void hintsTravelOnlyInVersionsThatCarryThem() {
        assertFalse(BROKERS.producePassesHints((short) 9));
        assertTrue(BROKERS.producePassesHints((short) 10));
        assertFalse(BROKERS.fetchPassesHints((short) 15));
        assertTrue(BROKERS.fetchPassesHints((short) 16));
    }
}
