package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

class TopicIsolationsTest {
    private static final Uuid OWN = Uuid.randomUuid();
    private static final Uuid FOREIGN = Uuid.randomUuid();
    private static final TopologySnapshot SNAPSHOT = TopologySnapshot.of("real-cluster", 0, List.of(), List.of(
            TopicLayout.of("a.orders", OWN, false, Map.of()), TopicLayout.of("b.orders", FOREIGN, false, Map.of())));
    private static final VirtualCluster TEAM_A = new VirtualCluster("team-a", VirtualCluster.derivedClusterId("team-a"),
            TenantNames.prefixed("a."), Set.of(new KafkaPrincipal("User", "alice")));

    private final TenantScope scope = new TenantScope(TEAM_A, SNAPSHOT);

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
        assertEquals(TEAM_A.clusterId(), answer.clusterId());
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
        request.topics().add(new FetchRequestData.FetchTopic().setTopicId(OWN));
        request.topics().add(new FetchRequestData.FetchTopic().setTopicId(FOREIGN));
        TopicIsolations.FETCH.rewriteRequest(request, scope);
        assertEquals(OWN, request.topics().get(0).topicId());
        Uuid sent = request.topics().get(1).topicId();
        assertNotEquals(FOREIGN, sent);
        assertEquals(Set.of(), SNAPSHOT.topics().values().stream().map(TopicLayout::id).filter(sent::equals)
                .collect(Collectors.toSet()));

        FetchResponseData answer = new FetchResponseData();
        answer.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(sent));
        TopicIsolations.FETCH.rewriteAnswer(answer, scope);
        assertEquals(FOREIGN, answer.responses().get(0).topicId());
    }
}
