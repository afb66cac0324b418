package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

class DescribeTopicPartitionsResponderTest {
    private static final short VERSION = 0;
    private static final Uuid ORDERS_ID = Uuid.fromString("b5Wzo1ZbQ2m3BSd4rtQsQw");

    /** "orders": p0 led by 1 (replicas 1,2,3; ISR 1,2), p1 led by 2, p2 without owner. "payments": p0 led by 3. */
    private StubTopology topology = new StubTopology(TopologySnapshot.of("cluster-a", 1, List.of(
                    new BrokerEndpoint(1, "b1.internal", 9092, null), new BrokerEndpoint(2, "b2.internal", 9092, null),
                    new BrokerEndpoint(3, "b3.internal", 9092, null)),
            List.of(TopicLayout.of("orders", ORDERS_ID, false, Map.of(
                            0, new PartitionLayout(0, 1, 7, List.of(1, 2, 3), List.of(1, 2), List.of()),
                            1, new PartitionLayout(1, 2, 3, List.of(2, 3, 1), List.of(2, 3, 1), List.of()),
                            2, new PartitionLayout(2, PartitionLayout.NO_OWNER, -1, List.of(3), List.of(), List.of(3)))),
                    TopicLayout.of("payments", Uuid.randomUuid(), false, Map.of(
                            0, new PartitionLayout(0, 3, 1, List.of(3), List.of(3), List.of()))))));

    @Test
    void brokersModeShowsRealLeadersReplicasAndIsr() {
        DescribeTopicPartitionsResponseTopic orders = ask(AdvertiseMode.BROKERS, request(2000, null, "orders"))
                .topics().find("orders");

        assertEquals(ORDERS_ID, orders.topicId());
        DescribeTopicPartitionsResponsePartition p0 = orders.partitions().get(0);
        assertEquals(1, p0.leaderId());
        assertEquals(7, p0.leaderEpoch());
        assertEquals(List.of(1, 2, 3), p0.replicaNodes());
        assertEquals(List.of(1, 2), p0.isrNodes());
        assertEquals(List.of(), p0.eligibleLeaderReplicas());
        DescribeTopicPartitionsResponsePartition p2 = orders.partitions().get(2);
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), p2.errorCode());
        assertEquals(-1, p2.leaderId());
    }

    @Test
    void singleModeShowsNodeZeroAsLeaderAndOnlyReplica() {
        DescribeTopicPartitionsResponsePartition p0 = ask(AdvertiseMode.SINGLE, request(2000, null, "orders"))
                .topics().find("orders").partitions().get(0);

        assertEquals(0, p0.leaderId());
        assertEquals(List.of(0), p0.replicaNodes());
        assertEquals(List.of(0), p0.isrNodes());
    }

    @Test
    void partitionLimitEndsThePageWithACursorAtTheFirstPartitionNotSent() {
        // When every topic is asked for, two partitions a page
        DescribeTopicPartitionsResponseData answer = ask(AdvertiseMode.BROKERS, request(2, null));

        // Then orders p0 and p1, and the cursor at orders p2
        assertEquals(List.of(0, 1), partitionsOf(answer, "orders"));
        assertEquals("orders", answer.nextCursor().topicName());
        assertEquals(2, answer.nextCursor().partitionIndex());
    }

    @Test
    void cursorResumesWhereThePreviousPageEnded() {
        // When the next page starts at orders p2, two partitions a page
        DescribeTopicPartitionsResponseData answer = ask(AdvertiseMode.BROKERS,
                request(2, new Cursor().setTopicName("orders").setPartitionIndex(2)));

        // Then orders p2 and payments p0, and no cursor: everything was sent
        assertEquals(List.of(2), partitionsOf(answer, "orders"));
        assertEquals(List.of(0), partitionsOf(answer, "payments"));
        assertNull(answer.nextCursor());
    }

    @Test
    void limitReachedAtATopicsEndPointsTheCursorAtTheNextTopic() {
        DescribeTopicPartitionsResponseData answer = ask(AdvertiseMode.BROKERS, request(3, null));

        assertEquals(List.of(0, 1, 2), partitionsOf(answer, "orders"));
        assertEquals("payments", answer.nextCursor().topicName());
        assertEquals(0, answer.nextCursor().partitionIndex());
    }

    @Test
    void namedUnknownAndInvalidTopicsGetTheBrokersErrorsInNameOrder() {
        // Given a lookup that finds nothing more
        DescribeTopicPartitionsResponseData answer = ask(AdvertiseMode.BROKERS,
                request(2000, null, "zzz-missing", "bad name", "payments"));

        assertEquals(List.of("bad name", "payments", "zzz-missing"),
                answer.topics().stream().map(DescribeTopicPartitionsResponseTopic::name).toList());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), answer.topics().find("bad name").errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), answer.topics().find("zzz-missing").errorCode());
        assertEquals(List.of(new StubTopology.Lookup(List.of("zzz-missing"), false)), topology.lookups());
    }

    private DescribeTopicPartitionsResponseData ask(AdvertiseMode mode, DescribeTopicPartitionsRequestData data) {
        RequestFrame request = KafkaWire.requestFrame(new DescribeTopicPartitionsRequest.Builder(data).build(VERSION),
                12, "admin");
        ByteBuf answer;
        try {
            answer = MetadataResponderTest.completed(new DescribeTopicPartitionsResponder(topology,
                    new AdvertisedListener("proxy", 9092, mode)).answer(request));
        } finally {
            request.frame().release();
        }
        return KafkaWire.parseResponseAndRelease(answer, ApiKeys.DESCRIBE_TOPIC_PARTITIONS, VERSION)
                .as(DescribeTopicPartitionsResponse.class).data();
    }

    private static DescribeTopicPartitionsRequestData request(int limit, Cursor cursor, String... names) {
        return new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(limit).setCursor(cursor)
                .setTopics(Arrays.stream(names).map(n -> new TopicRequest().setName(n)).collect(Collectors.toList()));
    }

    private static List<Integer> partitionsOf(DescribeTopicPartitionsResponseData answer, String topic) {
        return answer.topics().find(topic).partitions().stream()
                .map(DescribeTopicPartitionsResponsePartition::partitionIndex).toList();
    }
}
