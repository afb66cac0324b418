package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class GroupIsolationsTest {
    private final TenantScope scope = TeamA.scope();

    @Test
    void findCoordinatorPrefixesGroupKeysAndGivesThemBack() {
        FindCoordinatorRequestData request = new FindCoordinatorRequestData().setKeyType((byte) 0)
                .setCoordinatorKeys(new ArrayList<>(List.of("orders-app", "billing")));
        GroupIsolations.FIND_COORDINATOR.rewriteRequest(request, scope);
        assertEquals(List.of("a.orders-app", "a.billing"), request.coordinatorKeys());

        FindCoordinatorResponseData answer = new FindCoordinatorResponseData().setCoordinators(new ArrayList<>(List.of(
                new FindCoordinatorResponseData.Coordinator().setKey("a.orders-app")
                        .setErrorMessage("group a.orders-app is loading"))));
        GroupIsolations.FIND_COORDINATOR.rewriteAnswer(answer, scope);
        assertEquals("orders-app", answer.coordinators().get(0).key());
        assertEquals("group orders-app is loading", answer.coordinators().get(0).errorMessage());
    }

    @Test
    void findCoordinatorPrefixesAnOldClientsTransactionalIdAndRefusesShareKeys() {
        FindCoordinatorRequestData old = new FindCoordinatorRequestData().setKeyType((byte) 1).setKey("tx-1");
        GroupIsolations.FIND_COORDINATOR.rewriteRequest(old, scope);
        assertEquals("a.tx-1", old.key());

        FindCoordinatorRequestData share = new FindCoordinatorRequestData().setKeyType((byte) 2).setKey("g:t:0");
        TenantRefusal refusal = assertThrows(TenantRefusal.class,
                () -> GroupIsolations.FIND_COORDINATOR.rewriteRequest(share, scope));
        assertEquals(Errors.INVALID_REQUEST, refusal.error());
    }

    @Test
    void findCoordinatorGivesBackTheKeyOfTheTypeAskedForWhenPrefixesDiffer() {
        // Given: groups under t., transactional ids under t.tx., so a real transactional id starts like a group
        TenantScope differing = new TenantScope(new VirtualCluster("team-c", "c-id", new TenantNames("t.", "t.", "t.tx."),
                Set.of()), TeamA.SNAPSHOT);
        FindCoordinatorRequestData request = new FindCoordinatorRequestData().setKeyType((byte) 1)
                .setCoordinatorKeys(new ArrayList<>(List.of("pay")));
        GroupIsolations.FIND_COORDINATOR.rewriteRequest(request, differing);
        assertEquals(List.of("t.tx.pay"), request.coordinatorKeys());

        // When the answer comes back
        FindCoordinatorResponseData answer = new FindCoordinatorResponseData().setCoordinators(new ArrayList<>(List.of(
                new FindCoordinatorResponseData.Coordinator().setKey("t.tx.pay"))));
        GroupIsolations.FIND_COORDINATOR.rewriteAnswer(answer, differing);

        // Then the key loses the transactional-id prefix it was sent with, not the group prefix
        assertEquals("pay", answer.coordinators().get(0).key());
    }

    @Test
    void joinGroupSendsTheRealGroupId() {
        JoinGroupRequestData request = new JoinGroupRequestData().setGroupId("orders-app");
        GroupIsolations.JOIN_GROUP.rewriteRequest(request, scope);
        assertEquals("a.orders-app", request.groupId());
    }

    @Test
    void offsetCommitPrefixesGroupAndTopicsAndGivesTopicsBack() {
        OffsetCommitRequestData request = new OffsetCommitRequestData().setGroupId("orders-app")
                .setTopics(new ArrayList<>(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders"))));
        GroupIsolations.OFFSET_COMMIT.rewriteRequest(request, scope);
        assertEquals("a.orders-app", request.groupId());
        assertEquals("a.orders", request.topics().get(0).name());

        OffsetCommitResponseData answer = new OffsetCommitResponseData().setTopics(new ArrayList<>(List.of(
                new OffsetCommitResponseData.OffsetCommitResponseTopic().setName("a.orders"))));
        GroupIsolations.OFFSET_COMMIT.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.topics().get(0).name());
    }

    @Test
    void offsetFetchOfSeveralGroupsIsPrefixedAndItsAnswerCanBeFoundByClientNames() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("orders-app")
                        .setTopics(new ArrayList<>(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                .setName("orders")))),
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("billing").setTopics(null))));
        GroupIsolations.OFFSET_FETCH.rewriteRequest(request, scope);
        assertEquals("a.orders-app", request.groups().get(0).groupId());
        assertEquals("a.orders", request.groups().get(0).topics().get(0).name());
        assertEquals("a.billing", request.groups().get(1).groupId());
        assertNull(request.groups().get(1).topics(), "all of the group's offsets, still");

        OffsetFetchResponseData answer = new OffsetFetchResponseData().setGroups(new ArrayList<>(List.of(
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("a.orders-app")
                        .setTopics(new ArrayList<>(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopics()
                                .setName("a.orders")))))));
        GroupIsolations.OFFSET_FETCH.rewriteAnswer(answer, scope);
        OffsetFetchResponseData.OffsetFetchResponseGroup group = answer.groups().get(0);
        assertEquals("orders-app", group.groupId());
        assertEquals("orders", group.topics().get(0).name());
    }

    @Test
    void offsetFetchOfOneGroupKeepsItsOldShape() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroupId("orders-app")
                .setTopics(new ArrayList<>(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("orders"))));
        GroupIsolations.OFFSET_FETCH.rewriteRequest(request, scope);
        assertEquals("a.orders-app", request.groupId());
        assertEquals("a.orders", request.topics().get(0).name());

        OffsetFetchResponseData answer = new OffsetFetchResponseData().setTopics(new ArrayList<>(List.of(
                new OffsetFetchResponseData.OffsetFetchResponseTopic().setName("a.orders"))));
        GroupIsolations.OFFSET_FETCH.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.topics().get(0).name());
    }

    @Test
    void listGroupsShowsOnlyTheTenantsGroupsByTheirClientIds() {
        ListGroupsResponseData answer = new ListGroupsResponseData().setGroups(new ArrayList<>(List.of(
                new ListGroupsResponseData.ListedGroup().setGroupId("a.orders-app"),
                new ListGroupsResponseData.ListedGroup().setGroupId("b.payments"),
                new ListGroupsResponseData.ListedGroup().setGroupId("orders-app"))));
        GroupIsolations.LIST_GROUPS.rewriteAnswer(answer, scope);
        assertEquals(List.of("orders-app"), answer.groups().stream().map(ListGroupsResponseData.ListedGroup::groupId).toList());
    }

    @Test
    void describeAndDeleteGroupsGiveGroupIdsBack() {
        DescribeGroupsRequestData request = new DescribeGroupsRequestData().setGroups(new ArrayList<>(List.of("orders-app")));
        GroupIsolations.DESCRIBE_GROUPS.rewriteRequest(request, scope);
        assertEquals(List.of("a.orders-app"), request.groups());

        DescribeGroupsResponseData described = new DescribeGroupsResponseData().setGroups(new ArrayList<>(List.of(
                new DescribeGroupsResponseData.DescribedGroup().setGroupId("a.orders-app"))));
        GroupIsolations.DESCRIBE_GROUPS.rewriteAnswer(described, scope);
        assertEquals("orders-app", described.groups().get(0).groupId());

        DeleteGroupsResponseData.DeletableGroupResultCollection results = new DeleteGroupsResponseData.DeletableGroupResultCollection();
        results.add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId("a.orders-app"));
        DeleteGroupsResponseData deleted = new DeleteGroupsResponseData().setResults(results);
        GroupIsolations.DELETE_GROUPS.rewriteAnswer(deleted, scope);
        assertNotNull(deleted.results().find("orders-app"), "found by the client's id after the rename");
    }

    @Test
    void consumerGroupHeartbeatPrefixesSubscriptionNamesAndRegex() {
        ConsumerGroupHeartbeatRequestData request = new ConsumerGroupHeartbeatRequestData().setGroupId("orders-app")
                .setSubscribedTopicNames(new ArrayList<>(List.of("orders"))).setSubscribedTopicRegex("ord.*");
        GroupIsolations.CONSUMER_GROUP_HEARTBEAT.rewriteRequest(request, scope);
        assertEquals("a.orders-app", request.groupId());
        assertEquals(List.of("a.orders"), request.subscribedTopicNames());
        assertEquals(scope.names().topicPattern("ord.*"), request.subscribedTopicRegex());
    }
}
