package org.kafscale.proxy.core.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.policy.PolicyFactory;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.core.validation.RecordFormat.Check;

/**
 * The validation policy in a chain in front of a recording route, on a real event loop: what
 * goes on to the broker, and what the producer reads back.
 */
class ValidationPolicyTest {
    private static final short VERSION = 9;
    /** Values must start with '{': a format small enough to see through. */
    private static final RecordFormat BRACED = bytes -> bytes.hasRemaining() && bytes.get(bytes.position()) == '{'
            ? Check.VALID : Check.invalid("does not start with {");

    private final EventLoop loop = new DefaultEventLoop();
    private final ConnectionContext connection = new ConnectionContext(loop, null,
            new InetSocketAddress("127.0.0.1", 50000));
    private final List<RequestFrame> requests = new ArrayList<>();
    /** Each Produce the route got: its partitions' values, by "topic-partition". */
    private final List<Map<String, List<String>>> routed = new CopyOnWriteArrayList<>();
    private final List<RequestFrame> routedFrames = new CopyOnWriteArrayList<>();
    private final List<Boolean> routedOnLoop = new CopyOnWriteArrayList<>();

    /** Answers every Produce with baseOffset 7 on each partition it was sent. */
    private final RequestHandler route = (context, request) -> {
        routedOnLoop.add(context.loop().inEventLoop());
        routedFrames.add(request);
        ProduceRequestData body = request.decodeBody(ProduceRequestData.class);
        Map<String, List<String>> values = new TreeMap<>();
        ProduceResponseData answer = new ProduceResponseData();
        body.topicData().forEach(t -> {
            ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse()
                    .setName(t.name());
            t.partitionData().forEach(p -> {
                values.put(t.name() + "-" + p.index(), TestRecords.values(p.records()));
                topic.partitionResponses().add(new PartitionProduceResponse().setIndex(p.index()).setBaseOffset(7));
            });
            answer.responses().add(topic);
        });
        routed.add(values);
        ByteBuf frame = ResponseFrames.encode(request, answer);
        return Replies.now(context.loop(), Reply.send(frame));
    };

    @AfterEach
    void stop() {
        requests.forEach(r -> r.frame().release());
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void aRequestWithoutACoveredTopicGoesOnAsTheClientsOwnFrame() throws Exception {
        RequestFrame request = produce(Map.of("free", Map.of(0, List.of("not braced"))), (short) -1);
        ProduceResponseData answer = answerOf(handle(rules("orders.*", BRACED), request));
        assertSame(request, routedFrames.get(0));
        assertEquals(7, partition(answer, "free", 0).baseOffset());
    }

    @Test
    void anInvalidPartitionIsAnsweredWithItsRecordErrorsAndTheOthersGoOnAndAreMerged() throws Exception {
        // Given: orders-0 valid, orders-1 with its second record invalid (gzip, so it is decompressed), free unchecked
        RequestFrame request = produce(Map.of(
                "orders", Map.of(0, List.of("{\"a\":1}"), 1, List.of("{\"b\":1}", "nope", "{\"c\":1}")),
                "free", Map.of(0, List.of("anything"))), (short) -1);

        // When
        ProduceResponseData answer = answerOf(handle(rules("orders", BRACED), request));

        // Then: the broker got the valid partitions only, their records as sent
        assertEquals(List.of(Map.of("free-0", List.of("anything"), "orders-0", List.of("{\"a\":1}"))), routed);
        assertEquals(7, partition(answer, "orders", 0).baseOffset());
        assertEquals(7, partition(answer, "free", 0).baseOffset());
        PartitionProduceResponse refused = partition(answer, "orders", 1);
        assertEquals(Errors.INVALID_RECORD.code(), refused.errorCode());
        assertEquals(-1, refused.baseOffset());
        assertEquals(1, refused.recordErrors().size());
        assertEquals(1, refused.recordErrors().get(0).batchIndex());
        assertEquals("value: does not start with {", refused.recordErrors().get(0).batchIndexErrorMessage());
        assertEquals("1 record fails validation; record 1: value: does not start with {", refused.errorMessage());
    }

    @Test
    void aRequestOfInvalidPartitionsOnlyIsAnsweredWithoutTheBroker() throws Exception {
        RequestFrame request = produce(Map.of("orders", Map.of(0, List.of("x", "y"))), (short) -1);
        ProduceResponseData answer = answerOf(handle(rules("orders", BRACED), request));
        assertTrue(routed.isEmpty());
        PartitionProduceResponse refused = partition(answer, "orders", 0);
        assertEquals(Errors.INVALID_RECORD.code(), refused.errorCode());
        assertEquals(List.of(0, 1), refused.recordErrors().stream().map(e -> e.batchIndex()).toList());
    }

    @Test
    void aFormatThatWaitsMakesTheRequestWaitAndTheDecisionIsTakenOnTheLoop() throws Exception {
        // Given: a format whose schema arrives later, from another thread
        CompletableFuture<Void> schema = new CompletableFuture<>();
        RecordFormat later = bytes -> schema.isDone() ? BRACED.check(bytes) : new Check.Pending(schema);
        RequestFrame request = produce(Map.of("orders", Map.of(0, List.of("{\"a\":1}"), 1, List.of("no"))),
                (short) -1);
        PolicyChain chain = rules("orders", later);

        // When
        Future<Reply> reply = loop.submit(() -> chain.around(route).handle(connection, request)).get(5, TimeUnit.SECONDS);
        boolean decidedBefore = reply.isDone();
        new Thread(() -> schema.complete(null)).start();
        ProduceResponseData answer = answerOf(reply.get(5, TimeUnit.SECONDS));

        // Then
        assertEquals(false, decidedBefore);
        assertEquals(List.of(true), routedOnLoop);
        assertEquals(List.of(Map.of("orders-0", List.of("{\"a\":1}"))), routed);
        assertEquals(Errors.INVALID_RECORD.code(), partition(answer, "orders", 1).errorCode());
    }

    @Test
    void anInvalidAcksZeroProduceClosesTheConnectionAsABrokerDoes() throws Exception {
        RequestFrame request = produce(Map.of("orders", Map.of(0, List.of("x"))), (short) 0);
        Reply.Close close = assertInstanceOf(Reply.Close.class, handle(rules("orders", BRACED), request));
        assertTrue(close.reason().contains("acks=0 Produce refused by record validation"), close.reason());
        assertTrue(routed.isEmpty());
    }

    private PolicyChain rules(String topics, RecordFormat value) {
        ValidationRules rules = new ValidationRules(List.of(new ValidationRule(Pattern.compile(topics), null, value)),
                Map.of(), org.kafscale.proxy.core.tenant.VirtualClusters.NONE);
        return new PolicyChain(List.of(PolicyFactory.shared(new ValidationPolicy(rules, StubTopology.of()))));
    }

    /** A Produce of {@code values} by topic and partition, each partition one gzip batch. */
    private RequestFrame produce(Map<String, Map<Integer, List<String>>> values, short acks) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        new TreeMap<>(values).forEach((topic, partitions) -> {
            List<PartitionProduceData> data = new ArrayList<>();
            new TreeMap<>(partitions).forEach((index, records) -> data.add(new PartitionProduceData().setIndex(index)
                    .setRecords(MemoryRecords.withRecords(Compression.gzip().build(), records.stream()
                            .map(v -> new SimpleRecord(v.getBytes(StandardCharsets.UTF_8)))
                            .toArray(SimpleRecord[]::new)))));
            topics.add(new TopicProduceData().setName(topic).setPartitionData(data));
        });
        ProduceRequestData body = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000).setTopicData(topics);
        RequestFrame request = KafkaWire.requestFrame(new ProduceRequest.Builder(VERSION, VERSION, body).build(VERSION),
                42, "producer");
        requests.add(request);
        return request;
    }

    private Reply handle(PolicyChain chain, RequestFrame request) throws Exception {
        RequestHandler handler = chain.around(route);
        return loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    }

    private static ProduceResponseData answerOf(Reply reply) {
        ByteBuf frame = assertInstanceOf(Reply.Send.class, reply).frame();
        return KafkaWire.parseResponseAndRelease(frame, ApiKeys.PRODUCE, VERSION).as(ProduceResponse.class).data();
    }

    private static PartitionProduceResponse partition(ProduceResponseData answer, String topic, int index) {
        return answer.responses().stream().filter(t -> t.name().equals(topic))
                .flatMap(t -> t.partitionResponses().stream()).filter(p -> p.index() == index)
                .findFirst().orElseThrow(() -> new AssertionError(topic + "-" + index + " not in " + answer));
    }
}
