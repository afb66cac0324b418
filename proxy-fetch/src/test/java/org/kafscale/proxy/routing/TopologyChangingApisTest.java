package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResultCollection;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.testkit.Eventually;

/**
 * CreateTopics and DeleteTopics through the proxy are answered once the topology shows the change
 * (read afresh as often as needed), answered anyway when it never does, and not held at all when
 * nothing changed.
 */
class TopologyChangingApisTest {
    private static final short CREATE_TOPICS_VERSION = 7;
    private static final short DELETE_TOPICS_VERSION = 6;
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker = proxy.broker(1);
    private final StubTopology topology = proxy.topology();

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void createTopicsIsAnsweredOnceAFreshReadShowsTheTopic() throws Exception {
        // Given a broker that creates "fresh", and a topology whose first fresh read has not answered yet
        broker.on(ApiKeys.CREATE_TOPICS, request -> answer(created("fresh", Errors.NONE)));
        CompletableFuture<TopologySnapshot> read = new CompletableFuture<>();
        topology.refreshingWith(read);
        RawKafkaConnection client = proxy.connect();

        // When a client creates the topic
        RequestHeader header = client.write(createTopics("fresh", false), CREATE_TOPICS_VERSION);

        // Then the topology is read afresh; once that read shows the topic, the broker's answer comes back
        Eventually.await(DEADLINE, "a fresh read of the topology", () -> topology.refreshes() == 1);
        read.complete(withTopic(topology.snapshot(), "fresh"));
        CreateTopicsResponse answer = client.read(header);
        assertEquals(Map.of(Errors.NONE, 1), answer.errorCounts());
    }

    @Test
    void aReadThatDoesNotShowTheTopicYetIsFollowedByAnother() throws IOException {
        // Given a topology whose first fresh read still misses the new topic (the broker read lagged)
        broker.on(ApiKeys.CREATE_TOPICS, request -> answer(created("lagging", Errors.NONE)));
        topology.refreshingWith(CompletableFuture.completedFuture(topology.snapshot()),
                CompletableFuture.completedFuture(withTopic(topology.snapshot(), "lagging")));

        // When a client creates the topic
        CreateTopicsResponseData answer = proxy.connect().send(createTopics("lagging", false), CREATE_TOPICS_VERSION);

        // Then it is answered after the second read, the one that showed the topic
        assertEquals(Errors.NONE.code(), answer.topics().find("lagging").errorCode());
        assertEquals(2, topology.refreshes());
    }

    @Test
    void theAnswerGoesOutWhenTheTopologyNeverAnswers() throws IOException {
        // Given a topology whose fresh read never completes
        broker.on(ApiKeys.CREATE_TOPICS, request -> answer(created("stuck", Errors.NONE)));
        topology.refreshingWith(new CompletableFuture<>());

        // When a client creates a topic
        CreateTopicsResponseData answer = proxy.connect().send(createTopics("stuck", false), CREATE_TOPICS_VERSION);

        // Then the broker's answer still reaches it (after the bound), unchanged
        assertEquals(Errors.NONE.code(), answer.topics().find("stuck").errorCode());
        assertEquals(1, topology.refreshes());
    }

    @Test
    void nothingChangedNothingIsRead() throws IOException {
        // Given a broker that refuses one topic and validates another
        broker.on(ApiKeys.CREATE_TOPICS, request -> answer(created(
                request.data(CreateTopicsRequestData.class).topics().iterator().next().name(),
                request.data(CreateTopicsRequestData.class).validateOnly() ? Errors.NONE : Errors.TOPIC_ALREADY_EXISTS)));
        RawKafkaConnection client = proxy.connect();

        // When a client creates a topic that exists, and validates the creation of another
        CreateTopicsResponseData exists = client.send(createTopics("exists", false), CREATE_TOPICS_VERSION);
        CreateTopicsResponseData validated = client.send(createTopics("validated", true), CREATE_TOPICS_VERSION);

        // Then both answers are the broker's, and the topology was not read for either
        assertEquals(Errors.TOPIC_ALREADY_EXISTS.code(), exists.topics().find("exists").errorCode());
        assertEquals(Errors.NONE.code(), validated.topics().find("validated").errorCode());
        assertEquals(0, topology.refreshes());
    }

    @Test
    void deleteTopicsIsAnsweredOnceTheTopicIsGone() throws IOException {
        // Given a topic the topology knows, whose first fresh read still lists it
        topology.withPartition("old", 0, 1);
        TopologySnapshot withOld = topology.snapshot();
        TopologySnapshot withoutOld = TopologySnapshot.of(withOld.clusterId(), withOld.controllerId(),
                withOld.brokers().values(), List.of());
        topology.refreshingWith(CompletableFuture.completedFuture(withOld), CompletableFuture.completedFuture(withoutOld));
        broker.on(ApiKeys.DELETE_TOPICS, request -> answer(new DeleteTopicsResponseData().setResponses(
                new DeletableTopicResultCollection(List.of(new DeletableTopicResult().setName("old")
                        .setTopicId(Uuid.randomUuid())).iterator()))));

        // When a client deletes it
        DeleteTopicsResponseData answer = proxy.connect().send(new DeleteTopicsRequestData().setTimeoutMs(1000)
                .setTopics(List.of(new DeleteTopicState().setName("old"))), DELETE_TOPICS_VERSION);

        // Then it is answered after the read that no longer lists it
        assertEquals(Errors.NONE.code(), answer.responses().find("old").errorCode());
        assertEquals(2, topology.refreshes());
    }

    private static CreateTopicsRequestData createTopics(String name, boolean validateOnly) {
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(1000).setValidateOnly(validateOnly);
    }

    private static CreateTopicsResponseData created(String name, Errors error) {
        CreatableTopicResultCollection results = new CreatableTopicResultCollection();
        results.add(new CreatableTopicResult().setName(name).setErrorCode(error.code()).setNumPartitions(1)
                .setReplicationFactor((short) 1).setTopicId(Uuid.randomUuid()));
        return new CreateTopicsResponseData().setTopics(results);
    }

    /** {@code snapshot} with a one-partition topic {@code name} led by broker 1 added. */
    private static TopologySnapshot withTopic(TopologySnapshot snapshot, String name) {
        List<TopicLayout> topics = new ArrayList<>(snapshot.topics().values());
        topics.add(TopicLayout.of(name, Uuid.randomUuid(), false,
                Map.of(0, new PartitionLayout(0, 1, 0, List.of(1), List.of(1), List.of()))));
        return TopologySnapshot.of(snapshot.clusterId(), snapshot.controllerId(), snapshot.brokers().values(), topics);
    }
}
