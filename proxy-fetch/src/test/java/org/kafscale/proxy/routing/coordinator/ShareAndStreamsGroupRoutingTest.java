package org.kafscale.proxy.routing.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.routing.RoutingHarness;

/**
 * Share groups (KIP-932) and streams groups (KIP-1071) reach their coordinators: heartbeats go to
 * the group's coordinator, and describes naming groups of several coordinators are split per
 * coordinator and merged in request order.
 *
 * <p>group-a and group-c are coordinated by broker 1, group-b by broker 2.
 */
class ShareAndStreamsGroupRoutingTest {
    private static final short VERSION = 1;
    private static final List<String> GROUPS = List.of("group-a", "group-b", "group-c");

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();

    @BeforeEach
    void twoCoordinators() {
        topology.withCoordinator("group-a", 1).withCoordinator("group-b", 2).withCoordinator("group-c", 1);
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void shareAndStreamsHeartbeatsGoToTheGroupsCoordinator() throws IOException {
        // Given coordinators that say who they are in their answers
        broker2.on(ApiKeys.SHARE_GROUP_HEARTBEAT, request -> answer(new ShareGroupHeartbeatResponseData().setMemberId("at 2")));
        broker2.on(ApiKeys.STREAMS_GROUP_HEARTBEAT, request -> answer(new StreamsGroupHeartbeatResponseData().setMemberId("at 2")));

        // When members of group-b heartbeat
        ShareGroupHeartbeatResponseData share = proxy.connect().send(new ShareGroupHeartbeatRequestData()
                .setGroupId("group-b").setMemberId("m").setMemberEpoch(0).setSubscribedTopicNames(List.of("t")), VERSION);
        StreamsGroupHeartbeatResponseData streams = proxy.connect().send(new StreamsGroupHeartbeatRequestData()
                .setGroupId("group-b").setMemberId("m").setMemberEpoch(0).setRebalanceTimeoutMs(1000)
                .setProcessId("p").setActiveTasks(List.of()).setStandbyTasks(List.of()).setWarmupTasks(List.of()),
                (short) 0);

        // Then both reached broker 2, group-b's coordinator, and broker 1 saw neither
        assertEquals("at 2", share.memberId());
        assertEquals("at 2", streams.memberId());
        assertEquals(0, broker1.requests(ApiKeys.SHARE_GROUP_HEARTBEAT) + broker1.requests(ApiKeys.STREAMS_GROUP_HEARTBEAT));
    }

    @Test
    void streamsGroupDescribeIsSplitPerCoordinatorAndAnsweredInRequestOrder() throws IOException {
        // Given coordinators that list their groups in reverse, naming themselves
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.STREAMS_GROUP_DESCRIBE, request -> answer(new StreamsGroupDescribeResponseData().setGroups(
                    reversed(request.data(StreamsGroupDescribeRequestData.class).groupIds()).stream()
                            .map(g -> new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId(g)
                                    .setGroupState("at broker " + broker.id())).toList())));
        }

        // When a client describes three streams groups
        StreamsGroupDescribeResponseData answer = proxy.connect().send(new StreamsGroupDescribeRequestData()
                .setGroupIds(GROUPS), (short) 0);

        // Then each coordinator was asked for its own groups, and the answer lists all three in request order
        assertEquals(List.of("group-a", "group-c"), broker1.awaitRequests(ApiKeys.STREAMS_GROUP_DESCRIBE, 1).get(0)
                .data(StreamsGroupDescribeRequestData.class).groupIds());
        assertEquals(List.of("group-a at broker 1", "group-b at broker 2", "group-c at broker 1"),
                answer.groups().stream().map(g -> g.groupId() + " " + g.groupState()).toList());
    }

    @Test
    void shareGroupDescribeIsSplitPerCoordinatorAndAnsweredInRequestOrder() throws IOException {
        // Given coordinators that list their groups in reverse, naming themselves
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.SHARE_GROUP_DESCRIBE, request -> answer(new ShareGroupDescribeResponseData().setGroups(
                    reversed(request.data(ShareGroupDescribeRequestData.class).groupIds()).stream()
                            .map(g -> new ShareGroupDescribeResponseData.DescribedGroup().setGroupId(g)
                                    .setGroupState("at broker " + broker.id())).toList())));
        }

        // When a client describes three share groups
        ShareGroupDescribeResponseData answer = proxy.connect().send(new ShareGroupDescribeRequestData()
                .setGroupIds(GROUPS), VERSION);

        // Then the answer lists all three in request order, each from its coordinator
        assertEquals(List.of("group-a at broker 1", "group-b at broker 2", "group-c at broker 1"),
                answer.groups().stream().map(g -> g.groupId() + " " + g.groupState()).toList());
    }

    @Test
    void shareGroupOffsetsOfSeveralGroupsAreSplitPerCoordinatorAndAnsweredInRequestOrder() throws IOException {
        // Given coordinators that list their groups in reverse, naming themselves
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, request -> answer(new DescribeShareGroupOffsetsResponseData()
                    .setGroups(reversed(request.data(DescribeShareGroupOffsetsRequestData.class).groups().stream()
                            .map(DescribeShareGroupOffsetsRequestGroup::groupId).toList()).stream()
                            .map(g -> new DescribeShareGroupOffsetsResponseGroup().setGroupId(g)
                                    .setErrorMessage("at broker " + broker.id())).toList())));
        }

        // When a client asks for the offsets of three share groups
        DescribeShareGroupOffsetsResponseData answer = proxy.connect().send(new DescribeShareGroupOffsetsRequestData()
                .setGroups(GROUPS.stream().map(g -> new DescribeShareGroupOffsetsRequestGroup().setGroupId(g)).toList()),
                VERSION);

        // Then the answer lists all three in request order, each from its coordinator
        assertEquals(List.of("group-a at broker 1", "group-b at broker 2", "group-c at broker 1"),
                answer.groups().stream().map(g -> g.groupId() + " " + g.errorMessage()).toList());
    }

    private static List<String> reversed(List<String> groups) {
        List<String> reversed = new ArrayList<>(groups);
        Collections.reverse(reversed);
        return reversed;
    }
}
