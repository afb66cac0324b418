package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.TopicLayout;

class TopicIsolationsTest {
    private final TenantScope scope = TeamA.scope();

    @Test
    void aMetadataListingKeepsTheTenantsTopicsByItsNamesAndItsClusterId() {
        MetadataResponseData answer = new MetadataResponseData().setClusterId("real-cluster");
        for (String name : List.of("a.orders", "b.orders", "__consumer_offsets")) {
            answer.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(name));
        }
        TopicIsolations.METADATA.rewriteRequest(new MetadataRequestData().setTopics(null), scope);
        TopicIsolations.METADATA.rewriteAnswer(answer, scope);
        assertEquals(List.of("orders"), answer.topics().stream().map(t -> t.name()).toList());
        assertNotNull(answer.topics().find("orders"), "found by its new name");
        assertEquals(TeamA.CLUSTER.clusterId(), answer.clusterId());
    }

    @Test
    void produceNamesAreRealOnTheWayInAndTheClientsOnTheWayOut() {
        ProduceRequestData request = new ProduceRequestData().setTransactionalId("tx");
        request.topicData().add(new ProduceRequestData.TopicProduceData().setName("orders"));
        TopicIsolations.PRODUCE.rewriteRequest(request, scope);
        assertEquals("a.tx", request.transactionalId());
        assertNotNull(request.topicData().find("a.orders", Uuid.ZERO_UUID), "a route finds it by its real name");

        ProduceResponseData answer = new ProduceResponseData();
        answer.responses().add(new ProduceResponseData.TopicProduceResponse().setName("a.orders")
                .setPartitionResponses(List.of(new ProduceResponseData.PartitionProduceResponse()
                        .setErrorMessage("a.orders is full"))));
        TopicIsolations.PRODUCE.rewriteAnswer(answer, scope);
        ProduceResponseData.TopicProduceResponse topic = answer.responses().find("orders", Uuid.ZERO_UUID);
        assertEquals("orders is full", topic.partitionResponses().get(0).errorMessage());
    }

    @Test
    void aFetchByAnotherTenantsTopicIdGoesOutUnderAnIdNoBrokerKnowsAndComesBackUnderTheClients() {
        FetchRequestData request = new FetchRequestData();
        request.topics().add(new FetchRequestData.FetchTopic().setTopicId(TeamA.OWN));
        request.topics().add(new FetchRequestData.FetchTopic().setTopicId(TeamA.FOREIGN));
        TopicIsolations.FETCH.rewriteRequest(request, scope);
        assertEquals(TeamA.OWN, request.topics().get(0).topicId());
        Uuid sent = request.topics().get(1).topicId();
        assertNotEquals(TeamA.FOREIGN, sent);
        assertEquals(Set.of(), TeamA.SNAPSHOT.topics().values().stream().map(TopicLayout::id).filter(sent::equals)
                .collect(Collectors.toSet()));

        FetchResponseData answer = new FetchResponseData();
        answer.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(sent));
        TopicIsolations.FETCH.rewriteAnswer(answer, scope);
        assertEquals(TeamA.FOREIGN, answer.responses().get(0).topicId());
    }

    @Test
    void aFetchByTheTenantsOwnTopicIdsLeavesItsAnswerUnreadSoItsRecordsAreNotCopied() {
        // By its own ids, from version 13: the answer holds nothing to map
        FetchRequestData own = new FetchRequestData();
        own.topics().add(new FetchRequestData.FetchTopic().setTopicId(TeamA.OWN));
        TopicIsolations.FETCH.rewriteRequest(own, scope);
        assertFalse(TopicIsolations.FETCH.rewritesAnswerTo(own, (short) 13, scope));
        // An incremental fetch naming no topic: its answer names the session's, by id too
        assertFalse(TopicIsolations.FETCH.rewritesAnswerTo(new FetchRequestData(), (short) 17, scope));

        // Before version 13 the answer names topics, so it is read
        assertTrue(TopicIsolations.FETCH.rewritesAnswerTo(new FetchRequestData(), (short) 12, scope));
        // and with another tenant's id the answer must give the client's id back
        FetchRequestData foreign = new FetchRequestData();
        foreign.topics().add(new FetchRequestData.FetchTopic().setTopicId(TeamA.FOREIGN));
        TenantScope fresh = TeamA.scope();
        TopicIsolations.FETCH.rewriteRequest(foreign, fresh);
        assertTrue(TopicIsolations.FETCH.rewritesAnswerTo(foreign, (short) 13, fresh));
    }
}
