package org.kafscale.proxy.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class AdminCallsTest {
    @Test
    void eachResourceGetsItsOwnErrorFromTheAnswer() {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("a").setNumPartitions(3));
        request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("b").setNumPartitions(1));
        CreateTopicsResponseData answer = new CreateTopicsResponseData();
        answer.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("a"));
        answer.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("b")
                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));

        List<AdminCalls.Resource> resources = AdminCalls.resources(request).orElseThrow();
        Map<String, Short> errors = AdminCalls.errors(answer);

        assertEquals(3, resources.get(0).fields().get("numPartitions"));
        assertEquals(0, AdminCalls.errorOf(resources.get(0), errors));
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), AdminCalls.errorOf(resources.get(1), errors));
    }

    @Test
    void anOffsetCommitOutsideAGenerationIsRecordedAGroupMembersIsNot() {
        OffsetCommitRequestData reset = new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(-1)
                .setMemberId("");
        reset.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
                new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(42))));
        OffsetCommitRequestData member = new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(3)
                .setMemberId("consumer-1");
        OffsetCommitResponseData answer = new OffsetCommitResponseData();
        answer.topics().add(new OffsetCommitResponseData.OffsetCommitResponseTopic().setName("t").setPartitions(List.of(
                new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(0)
                        .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()))));

        List<AdminCalls.Resource> resources = AdminCalls.resources(reset).orElseThrow();

        assertTrue(AdminCalls.resources(member).isEmpty());
        assertEquals(List.of("group/g", "topic/t"), resources.stream().map(AdminCalls.Resource::key).toList());
        Map<String, Short> errors = AdminCalls.errors(answer);
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), AdminCalls.errorOf(resources.get(0), errors),
                "the group fails with its partitions");
    }

    @Test
    void writeTxnMarkersAndAlterConfigsAreMatchedToTheirAnswers() {
        WriteTxnMarkersRequestData markers = new WriteTxnMarkersRequestData();
        markers.markers().add(new WriteTxnMarkersRequestData.WritableTxnMarker().setProducerId(7).setTransactionResult(false)
                .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic().setName("t")
                        .setPartitionIndexes(List.of(0, 1)))));
        WriteTxnMarkersResponseData markersAnswer = new WriteTxnMarkersResponseData();
        markersAnswer.markers().add(new WriteTxnMarkersResponseData.WritableTxnMarkerResult().setProducerId(7)
                .setTopics(List.of(new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult().setName("t")
                        .setPartitions(List.of(new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult()
                                        .setPartitionIndex(0),
                                new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult().setPartitionIndex(1)
                                        .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()))))));
        AlterConfigsRequestData configs = new AlterConfigsRequestData();
        configs.resources().add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 4)
                .setResourceName("0").setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(List.of(
                        new AlterConfigsRequestData.AlterableConfig().setName("log.cleaner.threads").setValue("2"))
                        .iterator())));
        AlterConfigsResponseData configsAnswer = new AlterConfigsResponseData();
        configsAnswer.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType((byte) 4)
                .setResourceName("0").setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()));

        AdminCalls.Resource marker = AdminCalls.resources(markers).orElseThrow().get(0);
        AdminCalls.Resource broker = AdminCalls.resources(configs).orElseThrow().get(0);

        assertEquals("abort", marker.fields().get("action"));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), AdminCalls.errorOf(marker, AdminCalls.errors(markersAnswer)));
        assertEquals("broker", broker.fields().get("resourceType"));
        assertEquals(List.of("log.cleaner.threads"), broker.fields().get("configs"));
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), AdminCalls.errorOf(broker,
                AdminCalls.errors(configsAnswer)));
    }

    @Test
    void aResourceTheAnswerDoesNotNameIsAnUnknownError() {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("missing"));

        AdminCalls.Resource resource = AdminCalls.resources(request).orElseThrow().get(0);

        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), AdminCalls.errorOf(resource,
                AdminCalls.errors(new CreateTopicsResponseData())));
    }

    @Test
    void onlyAnAbortIsRecordedOfEndTxn() {
        assertTrue(AdminCalls.resources(new EndTxnRequestData().setTransactionalId("tx").setCommitted(true)).isEmpty());
        assertEquals("abort", AdminCalls.resources(new EndTxnRequestData().setTransactionalId("tx").setCommitted(false))
                .orElseThrow().get(0).fields().get("action"));
    }

    @Test
    void secretsAreNeverRecorded() {
        IncrementalAlterConfigsRequestData configs = new IncrementalAlterConfigsRequestData();
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource = new IncrementalAlterConfigsRequestData
                .AlterConfigsResource().setResourceType((byte) 2).setResourceName("t");
        resource.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                .setConfigOperation((byte) 0).setValue("the-value"));
        configs.resources().add(resource);
        AlterUserScramCredentialsRequestData scram = new AlterUserScramCredentialsRequestData();
        scram.upsertions().add(new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion().setName("carol")
                .setMechanism((byte) 2).setIterations(8192).setSalt("salt!".getBytes())
                .setSaltedPassword("salted!".getBytes()));

        String recorded = AdminCalls.resources(configs).orElseThrow().toString()
                + AdminCalls.resources(scram).orElseThrow().toString();

        assertTrue(recorded.contains("retention.ms:set"), recorded);
        assertFalse(recorded.contains("the-value"), recorded);
        assertTrue(recorded.contains("carol"), recorded);
        assertFalse(recorded.contains("salt"), recorded);
    }
}
