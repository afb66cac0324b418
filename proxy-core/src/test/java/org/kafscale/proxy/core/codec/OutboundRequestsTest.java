package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class OutboundRequestsTest {
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private static ProduceRequestData produceTo(Uuid... topicIds) {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1_000);
        for (int i = 0; i < topicIds.length; i++) {
            data.topicData().add(new TopicProduceData().setName("t" + i).setTopicId(topicIds[i]));
        }
        return data;
    }

    /** What the proxy's own header decoder makes of an encoded request; the caller releases its frame. */
    private static RequestFrame parsed(ByteBuf encoded) {
        try {
            return RequestHeaderDecoder.parse(encoded);
        } finally {
            encoded.release();
        }
    }

    @Test
    void produceWithEveryTopicIdKnownMayUseTheLatestVersion() {
        // Given a Produce whose topics all have ids
        // When it is made
        OutboundRequest<?> request = OutboundRequests.produce(produceTo(TOPIC_ID, Uuid.randomUuid()));

        // Then any version kafka-clients knows may carry it
        assertEquals(ApiKeys.PRODUCE.latestVersion(), request.latestVersion());
    }

    @Test
    void produceWithATopicWhoseIdIsUnknownStaysAtTheLastVersionThatNamesTopics() {
        // Given a Produce of which one topic has no known id
        // When it is made
        OutboundRequest<?> request = OutboundRequests.produce(produceTo(TOPIC_ID, Uuid.ZERO_UUID));

        // Then it is sent at v12 at most, which names topics
        assertEquals(12, request.latestVersion());
    }

    @Test
    void fetchOfAPartitionWhoseTopicIdIsUnknownStaysAtTheLastVersionThatNamesTopics() {
        // Given partitions to fetch, one of a topic without a known id
        Map<TopicPartition, OutboundRequests.FetchStart> starts = Map.of(
                new TopicPartition("a", 0), new OutboundRequests.FetchStart(TOPIC_ID, 5),
                new TopicPartition("b", 0), new OutboundRequests.FetchStart(Uuid.ZERO_UUID, 0));

        // When / Then the Fetch is sent at v12 at most; with every id known, at any version
        assertEquals(12, OutboundRequests.fetch(starts, 1024).latestVersion());
        assertEquals(ApiKeys.FETCH.latestVersion(), OutboundRequests.fetch(
                Map.of(new TopicPartition("a", 0), new OutboundRequests.FetchStart(TOPIC_ID, 5)), 1024).latestVersion());
    }

    @Test
    void anEncodedRequestCarriesTheClientIdAndTheVersionItWasEncodedAt() {
        // Given the ApiVersions request the proxy opens every broker connection with
        OutboundRequest<?> request = OutboundRequests.apiVersions();

        // When it is encoded at v3 for client id "kafscale-proxy"
        RequestFrame frame = parsed(request.encode((short) 3, "kafscale-proxy"));

        // Then the header says so, and the body names kafka-clients as the client software
        try {
            assertEquals(ApiKeys.API_VERSIONS.id, frame.apiKey());
            assertEquals(3, frame.apiVersion());
            assertEquals("kafscale-proxy", frame.clientId());
            assertEquals("apache-kafka-java", frame.decodeBody(ApiVersionsRequestData.class).clientSoftwareName());
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void findCoordinatorBeforeV4CarriesTheOneKeyInTheOldField() {
        // Given a FindCoordinator of one group
        OutboundRequest<List<Coordinator>> request = OutboundRequests.findCoordinator(CoordinatorKeyTypes.GROUP,
                "group-a");

        // When it is encoded at v3, before batched keys
        RequestFrame frame = parsed(request.encode((short) 3, "c"));

        // Then the key travels in the single-key field
        try {
            FindCoordinatorRequestData body = frame.decodeBody(FindCoordinatorRequestData.class);
            assertEquals("group-a", body.key());
            assertEquals(CoordinatorKeyTypes.GROUP, body.keyType());
        } finally {
            frame.frame().release();
        }
    }

    @Test
    void aFindCoordinatorAnswerBeforeV4IsReadAsAListOfOne() {
        // Given a broker's v3 answer, which names its coordinator in top-level fields
        FindCoordinatorResponseData answer = new FindCoordinatorResponseData().setErrorCode(Errors.NONE.code())
                .setNodeId(2).setHost("broker-2").setPort(9092);
        ByteBuf frame = ResponseFrames.encode(ApiKeys.FIND_COORDINATOR, (short) 3, 1, answer);

        // When the proxy reads it
        List<Coordinator> coordinators;
        try {
            coordinators = OutboundRequests.findCoordinator(CoordinatorKeyTypes.GROUP, "group-a")
                    .decodeAnswer((short) 3, frame);
        } finally {
            frame.release();
        }

        // Then it reads as the batched answers of v4 and later do: one coordinator in a list
        assertEquals(1, coordinators.size());
        assertEquals(2, coordinators.get(0).nodeId());
        assertEquals("broker-2", coordinators.get(0).host());
    }

    @Test
    void anAnswerThatDoesNotParseFails() {
        // Given bytes that are no ApiVersions answer
        ByteBuf garbage = Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 1, 7});

        // When / Then reading them fails rather than yielding a half-read answer
        try {
            assertThrows(RuntimeException.class, () -> OutboundRequests.apiVersions().decodeAnswer((short) 3, garbage));
        } finally {
            garbage.release();
        }
    }
}
