package org.kafscale.proxy.routing.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;
import static org.kafscale.proxy.routing.share.Shares.acknowledge;
import static org.kafscale.proxy.routing.share.Shares.delivering;
import static org.kafscale.proxy.routing.share.Shares.fetch;
import static org.kafscale.proxy.routing.share.Shares.fetchesAt;
import static org.kafscale.proxy.routing.share.Shares.results;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.routing.RoutingHarness;

/**
 * A share consumer's one session with the proxy, kept as one session per broker: each broker sees
 * its own epochs from 0 and only its own partitions, acknowledgements reach the broker that
 * delivered the records, a partition whose owner moved is forgotten at the old broker and added at
 * the new, and a broker that lost its session is opened again.
 *
 * <p>events-0 is on broker 1, events-1 and events-2 on broker 2, unless a test moves one.
 */
class ShareRouteTest {
    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();
    private static final List<String> ALL = List.of("events-0", "events-1", "events-2");

    @BeforeEach
    void partitionsOnTwoBrokers() {
        topology.withPartition("events", 0, 1).withPartition("events", 1, 2).withPartition("events", 2, 2);
        broker1.on(ApiKeys.SHARE_FETCH, request -> answer(delivering(topology, "events-0", "a")));
        broker2.on(ApiKeys.SHARE_FETCH, request -> answer(delivering(topology, "events-1", "b")));
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void eachBrokerOpensItsOwnSessionWithItsPartitionsAndCountsItsOwnEpochs() throws IOException {
        // Given a member that opened its session through the proxy, naming partitions of both brokers
        RawKafkaConnection member = proxy.connect();
        ShareFetchResponseData opened = member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);

        // When it fetches twice more in its session
        member.send(fetch(topology, 1, List.of(), Map.of(), List.of()), Shares.VERSION);
        member.send(fetch(topology, 2, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then each broker saw a session of its own partitions only, opened at 0 and incremented by one
        assertEquals(List.of("epoch 0 [events-0]", "epoch 1 []", "epoch 2 []"), fetchesAt(broker1, topology));
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch 1 []", "epoch 2 []"), fetchesAt(broker2, topology));
        // and the member got the records of both brokers in one answer
        assertEquals(Map.of("events-0", "[a]", "events-1", "[b]"), results(topology, opened));
        assertEquals(Errors.NONE.code(), opened.errorCode());
    }

    @Test
    void acknowledgementsGoOnlyToTheBrokerThatDeliveredTheRecordsAndAdvanceOnlyItsEpoch() throws IOException {
        // Given a member with records from both brokers
        broker1.on(ApiKeys.SHARE_ACKNOWLEDGE, request -> answer(acknowledged(request)));
        RawKafkaConnection member = proxy.connect();
        member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);

        // When it acknowledges events-1's record in a ShareFetch, then events-0's in a ShareAcknowledge
        member.send(fetch(topology, 1, List.of(), Map.of("events-1", new long[] {0, 0}), List.of()), Shares.VERSION);
        ShareAcknowledgeResponseData acked = member.send(acknowledge(topology, 2, "events-0", 0, 0), Shares.VERSION);
        member.send(fetch(topology, 3, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then broker 2 got its acknowledgement in its ShareFetch, broker 1 its own in a ShareAcknowledge at
        // its next epoch, and broker 2 was sent no ShareAcknowledge at all
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch 1 [events-1+ack]", "epoch 2 []"),
                fetchesAt(broker2, topology));
        assertEquals(List.of(2), broker1.received(ApiKeys.SHARE_ACKNOWLEDGE).stream()
                .map(r -> r.data(ShareAcknowledgeRequestData.class).shareSessionEpoch()).toList());
        assertEquals(List.of("epoch 0 [events-0]", "epoch 1 []", "epoch 3 []"), fetchesAt(broker1, topology));
        assertEquals(0, broker2.requests(ApiKeys.SHARE_ACKNOWLEDGE));
        assertEquals(Errors.NONE.code(), acked.responses().iterator().next().partitions().get(0).errorCode());
    }

    @Test
    void partitionWhoseOwnerMovedIsForgottenAtTheOldBrokerAndAddedAtTheNewOne() throws IOException {
        // Given a member whose session holds events-1 at broker 2
        RawKafkaConnection member = proxy.connect();
        member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);

        // When events-1 moves to broker 1 and the member fetches again
        topology.withPartition("events", 1, 1);
        member.send(fetch(topology, 1, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then broker 2 forgets it and broker 1 adds it, each in its own session
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch 1 [] forgot [events-1]"), fetchesAt(broker2, topology));
        assertEquals(List.of("epoch 0 [events-0]", "epoch 1 [events-1]"), fetchesAt(broker1, topology));
    }

    @Test
    void acknowledgementsOfAMovedPartitionGoToTheBrokerThatDeliveredThemAndThePartitionMovesNextTime() throws IOException {
        // Given a member that got events-1's record from broker 2
        RawKafkaConnection member = proxy.connect();
        member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);

        // When events-1 moves to broker 1, and the member acknowledges that record, then fetches again
        topology.withPartition("events", 1, 1);
        member.send(fetch(topology, 1, List.of(), Map.of("events-1", new long[] {0, 0}), List.of()), Shares.VERSION);
        member.send(fetch(topology, 2, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then the acknowledgement went to broker 2, and the partition moved with the next ShareFetch
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch 1 [events-1+ack]", "epoch 2 [] forgot [events-1]"),
                fetchesAt(broker2, topology));
        assertEquals(List.of("epoch 0 [events-0]", "epoch 1 []", "epoch 2 [events-1]"), fetchesAt(broker1, topology));
    }

    @Test
    void brokerThatLostTheSessionIsOpenedAgainWithItsPartitionsWhileTheOtherBrokersRecordsArrive() throws IOException {
        // Given a member with a session at both brokers, and broker 2 then loses it
        RawKafkaConnection member = proxy.connect();
        member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);
        broker2.on(ApiKeys.SHARE_FETCH, request -> answer(
                request.data(org.apache.kafka.common.message.ShareFetchRequestData.class).shareSessionEpoch() == 1
                        ? request.errorAnswer(Errors.SHARE_SESSION_NOT_FOUND) : delivering(topology, "events-1", "c")));

        // When the member fetches (acknowledging broker 2's record), and fetches again
        ShareFetchResponseData refused = member.send(fetch(topology, 1, List.of(),
                Map.of("events-1", new long[] {0, 0}), List.of()), Shares.VERSION);
        ShareFetchResponseData reopened = member.send(fetch(topology, 2, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then the first answer has broker 1's record, and the acknowledgement broker 2 did not take fails,
        // without failing the answer; broker 2's session is opened again with all its partitions
        assertEquals(Errors.NONE.code(), refused.errorCode());
        assertEquals(Map.of("events-0", "[a]", "events-1", "[] ack SHARE_SESSION_NOT_FOUND"), results(topology, refused));
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch 1 [events-1+ack]", "epoch 0 [events-1, events-2]"),
                fetchesAt(broker2, topology));
        assertEquals(Map.of("events-0", "[a]", "events-1", "[c]"), results(topology, reopened));
    }

    @Test
    void closingTheSessionClosesItAtEveryBrokerAndAnUnknownSessionIsRefused() throws IOException {
        // Given a member with a session at both brokers
        RawKafkaConnection member = proxy.connect();
        member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);

        // When it closes its session, then tries to go on with it
        member.send(fetch(topology, -1, List.of(), Map.of("events-0", new long[] {0, 0}), List.of()), Shares.VERSION);
        ShareFetchResponseData after = member.send(fetch(topology, 1, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then each broker was sent its final epoch (broker 1 with its acknowledgement), and the proxy
        // no longer knows the session
        assertEquals(List.of("epoch 0 [events-0]", "epoch -1 [events-0+ack]"), fetchesAt(broker1, topology));
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch -1 []"), fetchesAt(broker2, topology));
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), after.errorCode());
    }

    @Test
    void sessionLivesAndDiesWithTheClientConnection() throws IOException {
        // Given a member that opened its session on one connection, which then closes
        RawKafkaConnection member = proxy.connect();
        member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);
        member.close();

        // When the member goes on with that session on a new connection
        ShareFetchResponseData after = proxy.connect().send(fetch(topology, 1, List.of(), Map.of(), List.of()),
                Shares.VERSION);

        // Then the proxy knows no such session there, and sent the brokers nothing more
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), after.errorCode());
        assertEquals(1, broker1.requests(ApiKeys.SHARE_FETCH));
        assertEquals(1, broker2.requests(ApiKeys.SHARE_FETCH));
    }

    @Test
    void leaderHintOfAMovedPartitionNamesTheProxyAndTheNextFetchGoesToTheNewOwner() throws IOException {
        // Given broker 2 no longer leads events-2 and says broker 1 does
        topology.afterInvalidation("events", 2, 1);
        broker2.on(ApiKeys.SHARE_FETCH, request -> answer(notLeader("events-2", 1)));
        RawKafkaConnection member = proxy.connect();

        // When the member opens its session, then fetches again
        ShareFetchResponseData moved = member.send(fetch(topology, 0, ALL, Map.of(), List.of()), Shares.VERSION);
        member.send(fetch(topology, 1, List.of(), Map.of(), List.of()), Shares.VERSION);

        // Then the hint names the leader at the proxy's address, never a broker's
        assertEquals(List.of("1 proxy.test:9092"), moved.nodeEndpoints().stream()
                .map(e -> e.nodeId() + " " + e.host() + ":" + e.port()).toList());
        // and events-2 was forgotten at broker 2 and added at broker 1
        assertEquals(List.of("epoch 0 [events-0]", "epoch 1 [events-2]"), fetchesAt(broker1, topology));
        assertEquals(List.of("epoch 0 [events-1, events-2]", "epoch 1 [] forgot [events-2]"), fetchesAt(broker2, topology));
    }

    private ShareFetchResponseData notLeader(String partition, int leader) {
        ShareFetchResponseData answer = delivering(topology, partition);
        ShareFetchResponseData.PartitionData p = answer.responses().iterator().next().partitions().get(0);
        p.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                .setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(leader).setLeaderEpoch(5));
        answer.nodeEndpoints().add(new ShareFetchResponseData.NodeEndpoint().setNodeId(leader).setHost("broker-1.internal")
                .setPort(9093));
        return answer;
    }

    private static ShareAcknowledgeResponseData acknowledged(ScriptedBroker.Request request) {
        ShareAcknowledgeRequestData q = request.data(ShareAcknowledgeRequestData.class);
        ShareAcknowledgeResponseData answer = new ShareAcknowledgeResponseData();
        q.topics().forEach(t -> {
            ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse topic =
                    new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(t.topicId());
            t.partitions().forEach(p -> topic.partitions().add(new ShareAcknowledgeResponseData.PartitionData()
                    .setPartitionIndex(p.partitionIndex())));
            answer.responses().add(topic);
        });
        return answer;
    }
}
