package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.junit.jupiter.api.Test;

class StreamsGroupIsolationsTest {
    private final TenantScope scope = TeamA.scope();

    @Test
    void aHeartbeatsTopologyNamesTheTenantsTopicsAndItsRegexMatchesNoOtherTenants() {
        StreamsGroupHeartbeatRequestData request = new StreamsGroupHeartbeatRequestData().setGroupId("billing-app")
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology().setSubtopologies(List.of(
                        new StreamsGroupHeartbeatRequestData.Subtopology().setSubtopologyId("0")
                                .setSourceTopics(List.of("orders"))
                                .setSourceTopicRegex(List.of("pay.*"))
                                .setRepartitionSinkTopics(List.of("billing-app-by-customer-repartition"))
                                .setStateChangelogTopics(List.of(new StreamsGroupHeartbeatRequestData.TopicInfo()
                                        .setName("billing-app-totals-changelog")))
                                .setRepartitionSourceTopics(List.of(new StreamsGroupHeartbeatRequestData.TopicInfo()
                                        .setName("billing-app-by-customer-repartition"))))));
        StreamsGroupIsolations.STREAMS_GROUP_HEARTBEAT.rewriteRequest(request, scope);

        assertEquals("a.billing-app", request.groupId());
        StreamsGroupHeartbeatRequestData.Subtopology sub = request.topology().subtopologies().get(0);
        assertEquals(List.of("a.orders"), sub.sourceTopics());
        assertEquals(List.of("a.billing-app-by-customer-repartition"), sub.repartitionSinkTopics());
        assertEquals("a.billing-app-totals-changelog", sub.stateChangelogTopics().get(0).name());
        assertEquals("a.billing-app-by-customer-repartition", sub.repartitionSourceTopics().get(0).name());
        Pattern regex = Pattern.compile(sub.sourceTopicRegex().get(0));
        assertTrue(regex.matcher("a.payments").matches());
        assertFalse(regex.matcher("b.payments").matches(), "another tenant's topic");
        assertFalse(regex.matcher("payments").matches(), "a topic of no tenant");
    }

    @Test
    void aHeartbeatWithoutATopologyStaysWithoutOne() {
        StreamsGroupHeartbeatRequestData request = new StreamsGroupHeartbeatRequestData().setGroupId("billing-app")
                .setTopology(null);
        StreamsGroupIsolations.STREAMS_GROUP_HEARTBEAT.rewriteRequest(request, scope);
        assertNull(request.topology());
    }

    @Test
    void aHeartbeatsAnswerGivesBackTopicNamesInEndpointsAndStatus() {
        StreamsGroupHeartbeatResponseData answer = new StreamsGroupHeartbeatResponseData()
                .setStatus(List.of(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusDetail("source topics a.orders are missing")))
                .setPartitionsByUserEndpoint(List.of(new StreamsGroupHeartbeatResponseData.EndpointToPartitions()
                        .setActivePartitions(List.of(new StreamsGroupHeartbeatResponseData.TopicPartition()
                                .setTopic("a.orders")))
                        .setStandbyPartitions(List.of(new StreamsGroupHeartbeatResponseData.TopicPartition()
                                .setTopic("a.billing-app-totals-changelog")))));
        StreamsGroupIsolations.STREAMS_GROUP_HEARTBEAT.rewriteAnswer(answer, scope);

        assertEquals("source topics orders are missing", answer.status().get(0).statusDetail());
        StreamsGroupHeartbeatResponseData.EndpointToPartitions endpoint = answer.partitionsByUserEndpoint().get(0);
        assertEquals("orders", endpoint.activePartitions().get(0).topic());
        assertEquals("billing-app-totals-changelog", endpoint.standbyPartitions().get(0).topic());
    }

    @Test
    void describeGivesBackTheGroupIdAndTheTopologysTopicNames() {
        StreamsGroupDescribeRequestData request = new StreamsGroupDescribeRequestData()
                .setGroupIds(List.of("billing-app"));
        StreamsGroupIsolations.STREAMS_GROUP_DESCRIBE.rewriteRequest(request, scope);
        assertEquals(List.of("a.billing-app"), request.groupIds());

        StreamsGroupDescribeResponseData answer = new StreamsGroupDescribeResponseData().setGroups(List.of(
                new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId("a.billing-app")
                        .setTopology(new StreamsGroupDescribeResponseData.Topology().setSubtopologies(List.of(
                                new StreamsGroupDescribeResponseData.Subtopology()
                                        .setSourceTopics(List.of("a.orders"))
                                        .setStateChangelogTopics(List.of(new StreamsGroupDescribeResponseData
                                                .TopicInfo().setName("a.billing-app-totals-changelog"))))))));
        StreamsGroupIsolations.STREAMS_GROUP_DESCRIBE.rewriteAnswer(answer, scope);

        StreamsGroupDescribeResponseData.DescribedGroup group = answer.groups().get(0);
        assertEquals("billing-app", group.groupId());
        assertEquals(List.of("orders"), group.topology().subtopologies().get(0).sourceTopics());
        assertEquals("billing-app-totals-changelog",
                group.topology().subtopologies().get(0).stateChangelogTopics().get(0).name());
    }
}
