package org.kafscale.proxy.routing.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.hooks.RoutingObserver.RetryCause;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.routing.RoutingHarness;
import org.kafscale.proxy.routing.RoutingHarness.Retry;

/**
 * Group requests, seen from a client of a real listener with scripted brokers behind it: the
 * NOT_COORDINATOR hop, and requests naming groups of several coordinators, split and merged.
 */
class CoordinatorRoutingTest {
    private static final short HEARTBEAT_VERSION = 4;
    private static final short DESCRIBE_GROUPS_VERSION = 5;
    private static final short OFFSET_FETCH_VERSION = 9;
    private static final short DELETE_GROUPS_VERSION = 2;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final ScriptedBroker broker3 = proxy.broker(3);
    private final StubTopology topology = proxy.topology();

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void notCoordinatorMovesTheRequestToTheCoordinatorNamedNext() throws IOException {
        // Given group-a coordinated by broker 1, which says it is not, and broker 2 named after that
        topology.withCoordinator("group-a", 1).afterCoordinatorInvalidation("group-a", 2);
        broker1.on(ApiKeys.HEARTBEAT, request -> answer(request.errorAnswer(Errors.NOT_COORDINATOR)));
        broker2.on(ApiKeys.HEARTBEAT, request -> answer(new HeartbeatResponseData().setThrottleTimeMs(7)));

        // When a member of group-a sends a heartbeat
        HeartbeatResponseData answer = proxy.connect().send(heartbeat("group-a"), HEARTBEAT_VERSION);

        // Then broker 2's answer comes back, and broker 1's route was dropped
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(7, answer.throttleTimeMs());
        assertEquals(1, broker1.requests(ApiKeys.HEARTBEAT));
        assertEquals(List.of(new StubTopology.CoordinatorKey(CoordinatorKind.GROUP, "group-a")), topology.invalidatedCoordinators());
        assertEquals(List.of(new Retry(ApiKeys.HEARTBEAT, RetryCause.NOT_COORDINATOR)), proxy.retries());
    }

    @Test
    void afterTheLastAttemptTheLastNotCoordinatorAnswerIsRelayed() throws IOException {
        // Given group-a moving from broker 1 to 2 to 3 as each says it is not the coordinator (its throttle time naming it)
        topology.withCoordinator("group-a", 1).afterCoordinatorInvalidation("group-a", 2, 3);
        for (ScriptedBroker broker : List.of(broker1, broker2, broker3)) {
            broker.on(ApiKeys.HEARTBEAT, request -> answer(new HeartbeatResponseData()
                    .setErrorCode(Errors.NOT_COORDINATOR.code()).setThrottleTimeMs(broker.id())));
        }

        // When a member of group-a sends a heartbeat
        HeartbeatResponseData answer = proxy.connect().send(heartbeat("group-a"), HEARTBEAT_VERSION);

        // Then each broker was asked once, and the client gets broker 3's answer to rediscover the coordinator itself
        assertEquals(List.of(1, 1, 1), List.of(broker1.requests(ApiKeys.HEARTBEAT), broker2.requests(ApiKeys.HEARTBEAT),
                broker3.requests(ApiKeys.HEARTBEAT)));
        assertEquals(Errors.NOT_COORDINATOR.code(), answer.errorCode());
        assertEquals(3, answer.throttleTimeMs());
    }

    @Test
    void describeGroupsIsSplitPerCoordinatorAndAnsweredInRequestOrder() throws IOException {
        // Given group-a and group-c coordinated by broker 1, group-b by broker 2, each broker listing its groups in reverse
        twoCoordinators();
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.DESCRIBE_GROUPS, request -> answer(new DescribeGroupsResponseData().setGroups(
                    reversed(request.data(DescribeGroupsRequestData.class).groups()).stream()
                            .map(g -> new DescribedGroup().setGroupId(g).setProtocolData("at broker " + broker.id())).toList())));
        }

        // When a client describes group-a, group-b and group-c
        DescribeGroupsResponseData answer = proxy.connect().send(new DescribeGroupsRequestData()
                .setGroups(List.of("group-a", "group-b", "group-c")), DESCRIBE_GROUPS_VERSION);

        // Then each coordinator was asked for its own groups only, and the answer lists all three in request order
        assertEquals(List.of("group-a", "group-c"), broker1.awaitRequests(ApiKeys.DESCRIBE_GROUPS, 1).get(0)
                .data(DescribeGroupsRequestData.class).groups());
        assertEquals(List.of("group-b"), broker2.awaitRequests(ApiKeys.DESCRIBE_GROUPS, 1).get(0)
                .data(DescribeGroupsRequestData.class).groups());
        assertEquals(List.of("group-a at broker 1", "group-b at broker 2", "group-c at broker 1"),
                answer.groups().stream().map(g -> g.groupId() + " " + g.protocolData()).toList());
    }

    @Test
    void offsetFetchOfSeveralGroupsIsSplitPerCoordinatorAndAnsweredInRequestOrder() throws IOException {
        // Given group-a and group-c coordinated by broker 1, group-b by broker 2, each broker listing its groups in reverse
        twoCoordinators();
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.OFFSET_FETCH, request -> answer(new OffsetFetchResponseData().setGroups(
                    reversed(groupIds(request.data(OffsetFetchRequestData.class))).stream()
                            .map(g -> new OffsetFetchResponseGroup().setGroupId(g)).toList())));
        }

        // When a client fetches the committed offsets of group-a, group-b and group-c in one request
        OffsetFetchResponseData answer = proxy.connect().send(new OffsetFetchRequestData().setGroups(
                List.of(offsetsOf("group-a"), offsetsOf("group-b"), offsetsOf("group-c"))), OFFSET_FETCH_VERSION);

        // Then each coordinator was asked for its own groups only, and the answer lists all three in request order
        assertEquals(List.of("group-a", "group-c"),
                groupIds(broker1.awaitRequests(ApiKeys.OFFSET_FETCH, 1).get(0).data(OffsetFetchRequestData.class)));
        assertEquals(List.of("group-b"),
                groupIds(broker2.awaitRequests(ApiKeys.OFFSET_FETCH, 1).get(0).data(OffsetFetchRequestData.class)));
        assertEquals(List.of("group-a", "group-b", "group-c"),
                answer.groups().stream().map(OffsetFetchResponseGroup::groupId).toList());
    }

    @Test
    void deleteGroupsIsSplitPerCoordinatorAndAnsweredInRequestOrder() throws IOException {
        // Given group-a and group-c coordinated by broker 1, group-b by broker 2, each broker listing its groups in reverse
        twoCoordinators();
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.DELETE_GROUPS, request -> answer(new DeleteGroupsResponseData().setResults(
                    new DeletableGroupResultCollection(reversed(request.data(DeleteGroupsRequestData.class).groupsNames())
                            .stream().map(g -> new DeletableGroupResult().setGroupId(g)).iterator()))));
        }

        // When a client deletes group-a, group-b and group-c in one request
        DeleteGroupsResponseData answer = proxy.connect().send(new DeleteGroupsRequestData()
                .setGroupsNames(List.of("group-a", "group-b", "group-c")), DELETE_GROUPS_VERSION);

        // Then each coordinator was asked for its own groups only, and the answer lists all three in request order
        assertEquals(List.of("group-a", "group-c"), broker1.awaitRequests(ApiKeys.DELETE_GROUPS, 1).get(0)
                .data(DeleteGroupsRequestData.class).groupsNames());
        assertEquals(List.of("group-b"), broker2.awaitRequests(ApiKeys.DELETE_GROUPS, 1).get(0)
                .data(DeleteGroupsRequestData.class).groupsNames());
        assertEquals(List.of("group-a", "group-b", "group-c"),
                answer.results().stream().map(DeletableGroupResult::groupId).toList());
    }

    private void twoCoordinators() {
        topology.withCoordinator("group-a", 1).withCoordinator("group-b", 2).withCoordinator("group-c", 1);
    }

    private static HeartbeatRequestData heartbeat(String group) {
        return new HeartbeatRequestData().setGroupId(group).setGenerationId(1).setMemberId("member-1");
    }

    private static OffsetFetchRequestGroup offsetsOf(String group) {
        return new OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(
                new OffsetFetchRequestTopics().setName("orders").setPartitionIndexes(List.of(0))));
    }

    private static List<String> groupIds(OffsetFetchRequestData request) {
        return request.groups().stream().map(OffsetFetchRequestGroup::groupId).toList();
    }

    private static List<String> reversed(List<String> groups) {
        List<String> reversed = new ArrayList<>(groups);
        Collections.reverse(reversed);
        return reversed;
    }
}
