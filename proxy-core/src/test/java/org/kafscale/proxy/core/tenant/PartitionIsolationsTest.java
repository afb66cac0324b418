package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class PartitionIsolationsTest {
    private final TenantScope scope = TeamA.scope();

    @Test
    void describeProducersNamesRealTopicsAndAnswersInTheClients() {
        DescribeProducersRequestData request = new DescribeProducersRequestData().setTopics(List.of(
                new DescribeProducersRequestData.TopicRequest().setName("orders").setPartitionIndexes(List.of(0))));
        PartitionIsolations.DESCRIBE_PRODUCERS.rewriteRequest(request, scope);
        assertEquals("a.orders", request.topics().get(0).name());

        DescribeProducersResponseData answer = new DescribeProducersResponseData().setTopics(List.of(
                new DescribeProducersResponseData.TopicResponse().setName("a.orders").setPartitions(List.of(
                        new DescribeProducersResponseData.PartitionResponse()
                                .setErrorMessage("a.orders-0 is not led here")))));
        PartitionIsolations.DESCRIBE_PRODUCERS.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.topics().get(0).name());
        assertEquals("orders-0 is not led here", answer.topics().get(0).partitions().get(0).errorMessage());
    }

    @Test
    void electLeadersNamesRealTopicsAndAnswersInTheClients() {
        ElectLeadersRequestData request = new ElectLeadersRequestData();
        request.topicPartitions().add(new ElectLeadersRequestData.TopicPartitions().setTopic("orders")
                .setPartitions(List.of(0, 1)));
        PartitionIsolations.ELECT_LEADERS.rewriteRequest(request, scope);
        assertNotNull(request.topicPartitions().find("a.orders"), "a route finds it by its real name");

        ElectLeadersResponseData answer = new ElectLeadersResponseData().setReplicaElectionResults(List.of(
                new ElectLeadersResponseData.ReplicaElectionResult().setTopic("a.orders").setPartitionResult(List.of(
                        new ElectLeadersResponseData.PartitionResult().setPartitionId(0)
                                .setErrorMessage("a.orders-0 has its preferred leader")))));
        PartitionIsolations.ELECT_LEADERS.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.replicaElectionResults().get(0).topic());
        assertEquals("orders-0 has its preferred leader",
                answer.replicaElectionResults().get(0).partitionResult().get(0).errorMessage());
    }

    @Test
    void anElectionOverEveryPartitionIsRefusedSinceItWouldReachTheRealClusters() {
        ElectLeadersRequestData everything = new ElectLeadersRequestData().setTopicPartitions(null);
        TenantRefusal refusal = assertThrows(TenantRefusal.class,
                () -> PartitionIsolations.ELECT_LEADERS.rewriteRequest(everything, scope));
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, refusal.error());
    }

    @Test
    void listingEveryReassignmentShowsTheTenantsTopicsAlone() {
        ListPartitionReassignmentsRequestData every = new ListPartitionReassignmentsRequestData().setTopics(null);
        PartitionIsolations.LIST_PARTITION_REASSIGNMENTS.rewriteRequest(every, scope);
        assertNull(every.topics(), "still every reassignment");

        ListPartitionReassignmentsResponseData answer = new ListPartitionReassignmentsResponseData();
        List<ListPartitionReassignmentsResponseData.OngoingTopicReassignment> topics = new ArrayList<>();
        for (String name : List.of("a.orders", "b.orders", "__consumer_offsets")) {
            topics.add(new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(name));
        }
        answer.setTopics(topics);
        PartitionIsolations.LIST_PARTITION_REASSIGNMENTS.rewriteAnswer(answer, scope);
        assertEquals(List.of("orders"), answer.topics().stream()
                .map(ListPartitionReassignmentsResponseData.OngoingTopicReassignment::name).toList());

        ListPartitionReassignmentsRequestData named = new ListPartitionReassignmentsRequestData().setTopics(List.of(
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics().setName("orders")));
        PartitionIsolations.LIST_PARTITION_REASSIGNMENTS.rewriteRequest(named, scope);
        assertEquals("a.orders", named.topics().get(0).name());
    }

    @Test
    void alterPartitionReassignmentsNamesRealTopicsAndAnswersInTheClients() {
        AlterPartitionReassignmentsRequestData request = new AlterPartitionReassignmentsRequestData().setTopics(List.of(
                new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName("orders")));
        PartitionIsolations.ALTER_PARTITION_REASSIGNMENTS.rewriteRequest(request, scope);
        assertEquals("a.orders", request.topics().get(0).name());

        AlterPartitionReassignmentsResponseData answer = new AlterPartitionReassignmentsResponseData()
                .setErrorMessage("a.orders: busy").setResponses(List.of(
                        new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName("a.orders")
                                .setPartitions(List.of(new AlterPartitionReassignmentsResponseData
                                        .ReassignablePartitionResponse().setErrorMessage("a.orders-0 moving")))));
        PartitionIsolations.ALTER_PARTITION_REASSIGNMENTS.rewriteAnswer(answer, scope);
        assertEquals("orders", answer.responses().get(0).name());
        assertEquals("orders-0 moving", answer.responses().get(0).partitions().get(0).errorMessage());
        assertEquals("orders: busy", answer.errorMessage());
    }
}
