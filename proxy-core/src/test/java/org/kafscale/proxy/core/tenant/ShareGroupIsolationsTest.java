package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.junit.jupiter.api.Test;

class ShareGroupIsolationsTest {
    private final TenantScope scope = TeamA.scope();

    @Test
    void aHeartbeatNamesTheRealGroupAndTopicsAndAnUnchangedSubscriptionStaysUnchanged() {
        ShareGroupHeartbeatRequestData request = new ShareGroupHeartbeatRequestData().setGroupId("billing")
                .setSubscribedTopicNames(List.of("orders"));
        ShareGroupIsolations.SHARE_GROUP_HEARTBEAT.rewriteRequest(request, scope);
        assertEquals("a.billing", request.groupId());
        assertEquals(List.of("a.orders"), request.subscribedTopicNames());

        ShareGroupHeartbeatRequestData unchanged = new ShareGroupHeartbeatRequestData().setGroupId("billing")
                .setSubscribedTopicNames(null);
        ShareGroupIsolations.SHARE_GROUP_HEARTBEAT.rewriteRequest(unchanged, scope);
        assertNull(unchanged.subscribedTopicNames());

        ShareGroupHeartbeatResponseData answer = new ShareGroupHeartbeatResponseData()
                .setErrorMessage("group a.billing is full");
        ShareGroupIsolations.SHARE_GROUP_HEARTBEAT.rewriteAnswer(answer, scope);
        assertEquals("group billing is full", answer.errorMessage());
    }

    @Test
    void describeGivesBackGroupIdsMembersTopicsAndAssignments() {
        ShareGroupDescribeRequestData request = new ShareGroupDescribeRequestData().setGroupIds(List.of("billing"));
        ShareGroupIsolations.SHARE_GROUP_DESCRIBE.rewriteRequest(request, scope);
        assertEquals(List.of("a.billing"), request.groupIds());

        ShareGroupDescribeResponseData answer = new ShareGroupDescribeResponseData().setGroups(List.of(
                new ShareGroupDescribeResponseData.DescribedGroup().setGroupId("a.billing").setMembers(List.of(
                        new ShareGroupDescribeResponseData.Member().setSubscribedTopicNames(List.of("a.orders"))
                                .setAssignment(new ShareGroupDescribeResponseData.Assignment().setTopicPartitions(
                                        List.of(new ShareGroupDescribeResponseData.TopicPartitions().setTopicId(TeamA.OWN)
                                                .setTopicName("a.orders"))))))));
        ShareGroupIsolations.SHARE_GROUP_DESCRIBE.rewriteAnswer(answer, scope);
        ShareGroupDescribeResponseData.DescribedGroup group = answer.groups().get(0);
        assertEquals("billing", group.groupId());
        assertEquals(List.of("orders"), group.members().get(0).subscribedTopicNames());
        assertEquals("orders", group.members().get(0).assignment().topicPartitions().get(0).topicName());
    }

    @Test
    void aShareFetchByAnotherTenantsTopicIdGoesOutUnderAnIdNoBrokerKnowsAndComesBackUnderTheClients() {
        ShareFetchRequestData request = new ShareFetchRequestData().setGroupId("billing");
        request.topics().add(new ShareFetchRequestData.FetchTopic().setTopicId(TeamA.OWN));
        request.topics().add(new ShareFetchRequestData.FetchTopic().setTopicId(TeamA.FOREIGN));
        request.setForgottenTopicsData(new ArrayList<>(List.of(
                new ShareFetchRequestData.ForgottenTopic().setTopicId(TeamA.FOREIGN))));
        ShareGroupIsolations.SHARE_FETCH.rewriteRequest(request, scope);
        assertEquals("a.billing", request.groupId());
        assertNotNull(request.topics().find(TeamA.OWN), "the tenant's own id goes on");
        assertNull(request.topics().find(TeamA.FOREIGN), "another tenant's id never reaches a broker");
        Uuid sent = request.forgottenTopicsData().get(0).topicId();
        assertNotEquals(TeamA.FOREIGN, sent);
        assertNotNull(request.topics().find(sent), "one substitute per id in the request");

        ShareFetchResponseData answer = new ShareFetchResponseData().setErrorMessage("a.billing: stale session");
        answer.responses().add(new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(sent)
                .setPartitions(List.of(new ShareFetchResponseData.PartitionData().setErrorMessage("unknown")
                        .setAcknowledgeErrorMessage("a.orders-0 was not acquired"))));
        ShareGroupIsolations.SHARE_FETCH.rewriteAnswer(answer, scope);
        ShareFetchResponseData.ShareFetchableTopicResponse topic = answer.responses().find(TeamA.FOREIGN);
        assertNotNull(topic, "found under the client's id");
        assertEquals("orders-0 was not acquired", topic.partitions().get(0).acknowledgeErrorMessage());
        assertEquals("billing: stale session", answer.errorMessage());
    }

    @Test
    void aShareAcknowledgementOfAnotherTenantsTopicIdNeverReachesItsTopic() {
        ShareAcknowledgeRequestData request = new ShareAcknowledgeRequestData().setGroupId("billing");
        request.topics().add(new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(TeamA.FOREIGN));
        ShareGroupIsolations.SHARE_ACKNOWLEDGE.rewriteRequest(request, scope);
        assertEquals("a.billing", request.groupId());
        Uuid sent = request.topics().iterator().next().topicId();
        assertNotEquals(TeamA.FOREIGN, sent);

        ShareAcknowledgeResponseData answer = new ShareAcknowledgeResponseData();
        answer.responses().add(new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(sent));
        ShareGroupIsolations.SHARE_ACKNOWLEDGE.rewriteAnswer(answer, scope);
        assertNotNull(answer.responses().find(TeamA.FOREIGN), "found under the client's id");
    }

    @Test
    void describeOffsetsOfEveryTopicKeepsTheTenantsTopicsAndGivesBackNames() {
        DescribeShareGroupOffsetsRequestData request = new DescribeShareGroupOffsetsRequestData().setGroups(List.of(
                new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId("billing")
                        .setTopics(null)));
        ShareGroupIsolations.DESCRIBE_SHARE_GROUP_OFFSETS.rewriteRequest(request, scope);
        assertEquals("a.billing", request.groups().get(0).groupId());
        assertNull(request.groups().get(0).topics(), "still every topic");

        List<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic> topics = new ArrayList<>();
        for (String name : List.of("a.orders", "b.orders")) {
            topics.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
                    .setTopicName(name));
        }
        DescribeShareGroupOffsetsResponseData answer = new DescribeShareGroupOffsetsResponseData().setGroups(List.of(
                new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                        .setGroupId("a.billing").setTopics(topics)));
        ShareGroupIsolations.DESCRIBE_SHARE_GROUP_OFFSETS.rewriteAnswer(answer, scope);
        assertEquals("billing", answer.groups().get(0).groupId());
        assertEquals(List.of("orders"), answer.groups().get(0).topics().stream()
                .map(DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic::topicName).toList());
    }

    @Test
    void alterAndDeleteOffsetsNameTheRealGroupAndTopicsAndAnswerInTheClients() {
        AlterShareGroupOffsetsRequestData alter = new AlterShareGroupOffsetsRequestData().setGroupId("billing");
        alter.topics().add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic()
                .setTopicName("orders"));
        ShareGroupIsolations.ALTER_SHARE_GROUP_OFFSETS.rewriteRequest(alter, scope);
        assertEquals("a.billing", alter.groupId());
        assertNotNull(alter.topics().find("a.orders"), "a route finds it by its real name");

        AlterShareGroupOffsetsResponseData altered = new AlterShareGroupOffsetsResponseData();
        altered.responses().add(new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                .setTopicName("a.orders"));
        ShareGroupIsolations.ALTER_SHARE_GROUP_OFFSETS.rewriteAnswer(altered, scope);
        assertNotNull(altered.responses().find("orders"), "found by the client's name");

        DeleteShareGroupOffsetsRequestData delete = new DeleteShareGroupOffsetsRequestData().setGroupId("billing")
                .setTopics(List.of(new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic()
                        .setTopicName("orders")));
        ShareGroupIsolations.DELETE_SHARE_GROUP_OFFSETS.rewriteRequest(delete, scope);
        assertEquals("a.billing", delete.groupId());
        assertEquals("a.orders", delete.topics().get(0).topicName());

        DeleteShareGroupOffsetsResponseData deleted = new DeleteShareGroupOffsetsResponseData().setResponses(List.of(
                new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic().setTopicName("a.orders")
                        .setErrorMessage("a.orders has no offsets")));
        ShareGroupIsolations.DELETE_SHARE_GROUP_OFFSETS.rewriteAnswer(deleted, scope);
        assertEquals("orders", deleted.responses().get(0).topicName());
        assertEquals("orders has no offsets", deleted.responses().get(0).errorMessage());
    }
}
