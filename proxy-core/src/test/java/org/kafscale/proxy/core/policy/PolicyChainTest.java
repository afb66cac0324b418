package org.kafscale.proxy.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * The policy chain in front of a recording route, on a real event loop: the order of the hooks,
 * asynchronous decisions, replaced requests and answers, a policy answering itself, a failing
 * policy, and what the chain leaves alone.
 */
class PolicyChainTest {
    private static final short VERSION = 9;

    private final EventLoop loop = new DefaultEventLoop();
    private final ExecutorService elsewhere = Executors.newSingleThreadExecutor();
    private final ConnectionContext connection = new ConnectionContext(loop, null,
            new InetSocketAddress("127.0.0.1", 50000));
    /** What happened, in order: hooks and the route. */
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** The frames the route got, and a copy of their bytes (a frame of the chain's own is released after). */
    private final List<RequestFrame> routed = new ArrayList<>();
    private final List<byte[]> routedBytes = new ArrayList<>();
    /** The route's answer frames, as it made them. */
    private final List<ByteBuf> answered = new ArrayList<>();
    private final List<RequestFrame> requests = new ArrayList<>();

    /** Answers every Produce with baseOffset 7 on each partition it was sent, recording what it routed. */
    private final RequestHandler route = (context, request) -> {
        events.add("route on loop " + context.loop().inEventLoop());
        routed.add(request);
        routedBytes.add(ByteBufUtil.getBytes(request.frame()));
        ProduceRequestData body = request.decodeBody(ProduceRequestData.class);
        ProduceResponseData answer = new ProduceResponseData();
        body.topicData().forEach(t -> {
            ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse()
                    .setName(t.name());
            t.partitionData().forEach(p -> topic.partitionResponses().add(
                    new ProduceResponseData.PartitionProduceResponse().setIndex(p.index()).setBaseOffset(7)));
            answer.responses().add(topic);
        });
        ByteBuf frame = ResponseFrames.encode(request, answer);
        answered.add(frame);
        return Replies.now(context.loop(), Reply.send(frame));
    };

    @AfterEach
    void stop() {
        requests.forEach(r -> r.frame().release());
        elsewhere.shutdownNow();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void requestHooksRunInChainOrderAndAnswerHooksInReverse() throws Exception {
        // Given a chain of two policies that read both ways
        PolicyChain chain = PolicyChain.of(new Recording("first"), new Recording("second"));

        // When a Produce goes through it
        ProduceResponseData answer = answerOf(handle(chain, produce("orders", "v")));

        // Then the first policy read the request first and the answer last
        assertEquals(List.of("first reads Produce", "second reads Produce", "route on loop true",
                "second reads its answer", "first reads its answer"), events);
        assertEquals(7, answer.responses().iterator().next().partitionResponses().get(0).baseOffset());
    }

    @Test
    void unchangedRequestAndAnswerGoOnAsTheirOwnBytesParsedOnce() throws Exception {
        // Given a chain whose policy reads requests and answers and changes neither
        PolicyChain chain = PolicyChain.of(new Recording("reader"));
        RequestFrame request = produce("orders", "v");

        // When a Produce goes through it
        Reply reply = handle(chain, request);

        // Then the route got the client's own frame (no re-encode), parsed once for policy and route,
        // and the client gets the route's own answer frame
        assertSame(request, routed.get(0));
        assertEquals(1, request.bodyParses());
        assertSame(answered.get(0), assertInstanceOf(Reply.Send.class, reply).frame());
        answerOf(reply);
    }

    @Test
    void aDecisionCompletedOnAnotherThreadIsFollowedOnTheConnectionsLoop() throws Exception {
        // Given a first policy that decides on another thread, and a second that records where it runs
        RequestPolicy later = (body, context) -> {
            Promise<RequestOutcome> outcome = context.newOutcome();
            elsewhere.execute(() -> outcome.setSuccess(RequestOutcome.forward()));
            return outcome;
        };
        RequestPolicy onLoop = (body, context) -> {
            events.add("second on loop " + context.loop().inEventLoop());
            return context.forward();
        };

        // When a Produce goes through both
        answerOf(handle(PolicyChain.of(later, onLoop), produce("orders", "v")));

        // Then the second policy and the route ran on the connection's loop
        assertEquals(List.of("second on loop true", "route on loop true"), events);
    }

    @Test
    void aReplacedBodyReachesTheRouteEncodedAtTheRequestsVersion() throws Exception {
        // Given a policy that renames every topic and rewrites the records
        RequestPolicy rename = (body, context) -> {
            ProduceRequestData produce = (ProduceRequestData) body;
            ProduceRequestData renamed = KafkaWire.produceData("tenant-a.orders", 0, "k", "rewritten");
            renamed.setAcks(produce.acks()).setTimeoutMs(produce.timeoutMs());
            return context.now(RequestOutcome.forward(renamed));
        };
        RequestFrame request = produce("orders", "v");

        // When a Produce goes through it
        answerOf(handle(PolicyChain.of(rename), request));

        // Then the route got a frame of its own whose bytes, read by kafka-clients, carry the new body
        // at the client's version and correlation id
        RequestFrame sent = routed.get(0);
        assertNotSame(request, sent);
        RequestFrame reread = KafkaWire.requestFrame(Unpooled.wrappedBuffer(routedBytes.get(0)));
        requests.add(reread);
        assertEquals(VERSION, reread.apiVersion());
        assertEquals(request.correlationId(), reread.correlationId());
        ProduceRequestData body = reread.decodeBody(ProduceRequestData.class);
        ProduceRequestData.TopicProduceData topic = body.topicData().iterator().next();
        assertEquals("tenant-a.orders", topic.name());
        assertEquals(List.of("rewritten"), TestRecords.values(topic.partitionData().get(0).records()));
        // ... and that frame was released once the answer was ready
        assertEquals(0, sent.frame().refCnt());
    }

    @Test
    void aReplacedAnswerReachesTheClient() throws Exception {
        // Given a policy that marks every partition of a Produce answer POLICY_VIOLATION
        AnswerPolicy violation = (answer, context) -> {
            ((ProduceResponseData) answer).responses().forEach(t -> t.partitionResponses()
                    .forEach(p -> p.setErrorCode(Errors.POLICY_VIOLATION.code())));
            return context.now(AnswerOutcome.replace(answer));
        };

        // When a Produce goes through it
        ProduceResponseData answer = answerOf(handle(PolicyChain.of(violation), produce("orders", "v")));

        // Then the client reads the replaced answer, the rest of it as the route made it
        ProduceResponseData.PartitionProduceResponse partition = answer.responses().iterator().next()
                .partitionResponses().get(0);
        assertEquals(Errors.POLICY_VIOLATION.code(), partition.errorCode());
        assertEquals(7, partition.baseOffset());
    }

    @Test
    void aPolicyAnsweringItselfStopsTheRequestAndEarlierPoliciesReadItsAnswer() throws Exception {
        // Given a reading policy, then one that refuses every Produce with Kafka's error answer
        RequestPolicy refuse = (body, context) -> context.now(context.error(Errors.POLICY_VIOLATION));
        PolicyChain chain = PolicyChain.of(new Recording("first"), refuse, new Recording("after"));

        // When a Produce goes through them
        ProduceResponseData answer = answerOf(handle(chain, produce("orders", "v")));

        // Then neither the policy after it nor the route saw the request; the first read the refusal
        assertEquals(List.of("first reads Produce", "first reads its answer"), events);
        assertEquals(Errors.POLICY_VIOLATION.code(),
                answer.responses().iterator().next().partitionResponses().get(0).errorCode());
    }

    @Test
    void aFailingPolicyClosesTheConnectionNamingItAndTheRequest() throws Exception {
        // Given a policy whose decision fails, after one that reads answers
        RequestPolicy failing = (body, context) -> {
            Promise<RequestOutcome> outcome = context.newOutcome();
            elsewhere.execute(() -> outcome.setFailure(new IllegalStateException("quota store unreachable")));
            return outcome;
        };
        PolicyChain chain = PolicyChain.of(new Recording("first"), new Failing(failing));

        // When a Produce goes through them
        Reply reply = handle(chain, produce("orders", "v"));

        // Then the connection closes with a reason naming the policy, the request and the cause; the
        // route never saw the request and the first policy was told it got no answer
        String reason = assertInstanceOf(Reply.Close.class, reply).reason();
        assertTrue(reason.contains("Failing") && reason.contains("Produce(key 0) v9")
                && reason.contains("quota store unreachable"), reason);
        assertEquals(List.of("first reads Produce", "first got no answer"), events);
    }

    @Test
    void aRequestNoPolicyReadsGoesToTheRouteUnparsedAndUnwrapped() throws Exception {
        // Given a chain that reads Fetches only
        RequestPolicy fetchesOnly = new RequestPolicy() {
            @Override
            public boolean readsRequests(ApiKeys api) {
                return api == ApiKeys.FETCH;
            }

            @Override
            public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
                throw new AssertionError("read a " + context.api());
            }
        };
        RequestHandler handler = PolicyChain.of(fetchesOnly).around(route);
        RequestFrame request = produce("orders", "v");

        // When a Produce goes through it
        Future<Reply> reply = loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS);

        // Then the route's own future comes back, and the body was parsed by the route alone
        assertSame(answered.get(0), assertInstanceOf(Reply.Send.class, reply.get(5, TimeUnit.SECONDS)).frame());
        assertEquals(1, request.bodyParses());
        answerOf(reply.getNow());
        // ... and an empty chain is the route itself
        assertSame(route, PolicyChain.of().around(route));
    }

    @Test
    void oneClassWithTypedHooksReadsEachOfItsApisAsItsOwnClass() throws Exception {
        // Given a policy that registers typed hooks for Produce requests and answers, and for Fetch requests
        Policy typed = policy(hooks -> hooks
                .onRequest(ProduceRequestData.class, (request, context) -> {
                    events.add("produce to " + request.topicData().iterator().next().name());
                    return context.forward();
                })
                .onAnswer(ProduceResponseData.class, (answer, context) -> {
                    events.add("answer at " + answer.responses().iterator().next().partitionResponses().get(0)
                            .baseOffset());
                    return context.keep();
                })
                .onRequest(FetchRequestData.class, (request, context) -> {
                    throw new AssertionError("no Fetch was sent");
                }));

        // When a Produce goes through it
        answerOf(handle(PolicyChain.of(typed), produce("orders", "v")));

        // Then its Produce hooks read the request and the answer, each as its generated class
        assertEquals(List.of("produce to orders", "route on loop true", "answer at 7"), events);
    }

    @Test
    void aHookForAClassThatIsNoApisBodyIsRefusedAsItIsRegistered() {
        // Given policies that register a hook for a class no ApiKeys makes, and one the wrong way round
        Policy notABody = policy(hooks -> hooks.onRequest(ApiMessage.class, (request, context) -> context.forward()));
        Policy wrongWay = policy(hooks -> hooks.onAnswer(ProduceRequestData.class, (answer, context) -> context.keep()));

        // When chains are built of them
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> PolicyChain.of(notABody));
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> PolicyChain.of(wrongWay));

        // Then each is refused, saying why
        assertTrue(none.getMessage().contains(ApiMessage.class.getName() + " is the body of none"), none.getMessage());
        assertTrue(other.getMessage().contains("ProduceRequestData is the other body of PRODUCE: register it with "
                + "onRequest"), other.getMessage());
    }

    @Test
    void twoHooksForOneApiOrAPolicyThatReadsNothingAreRefused() {
        // Given a policy with two Produce request hooks, one with a typed and an untyped hook for Produce,
        // and one that registers nothing
        Policy twice = policy(hooks -> hooks.onRequest(ProduceRequestData.class, (request, context) -> context.forward())
                .onRequest(ProduceRequestData.class, (request, context) -> context.forward()));
        RequestPolicy both = new RequestPolicy() {
            @Override
            public void register(Hooks hooks) {
                hooks.onRequest(ProduceRequestData.class, (request, context) -> context.forward());
            }

            @Override
            public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
                return context.forward();
            }
        };
        Policy nothing = new Policy() {
        };

        // When chains are built of them, then each is refused
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PolicyChain.of(twice)).getMessage()
                .contains("two hooks for the requests of PRODUCE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PolicyChain.of(both)).getMessage()
                .contains("two hooks for the requests of PRODUCE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PolicyChain.of(nothing)).getMessage()
                .contains("reads no request and no answer"));
    }

    @Test
    void everyApisRequestAndResponseBodyRegistersForItsOwnKey() {
        for (ApiKeys api : ApiKeys.values()) {
            if (api.id >= 4 && api.id <= 7) {
                continue; // removed from Kafka (LeaderAndIsr to ControlledShutdown): no body class is left
            }
            assertEquals(api, ApiBodies.ofRequest(api.messageType.newRequest().getClass()));
            assertEquals(api, ApiBodies.ofAnswer(api.messageType.newResponse().getClass()));
        }
    }

    @Test
    void theSmallestPolicyOfTheArchitectureDocRefusesTooManyPartitions() throws Exception {
        // Given the doc's example policy
        PolicyChain chain = PolicyChain.of(new PartitionCap());
        CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName("huge").setNumPartitions(101)
                .setReplicationFactor((short) 3));
        RequestFrame request = KafkaWire.requestFrame(new CreateTopicsRequest.Builder(
                new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000)).build((short) 7), 43, "admin");
        requests.add(request);

        // When a CreateTopics of 101 partitions goes through it
        Reply reply = handle(chain, request);

        // Then the client reads POLICY_VIOLATION for the topic, and no broker was asked
        ByteBuf frame = assertInstanceOf(Reply.Send.class, reply).frame();
        CreateTopicsResponseData answer = KafkaWire.parseResponseAndRelease(frame, ApiKeys.CREATE_TOPICS, (short) 7)
                .as(CreateTopicsResponse.class).data();
        assertEquals(Errors.POLICY_VIOLATION.code(), answer.topics().find("huge").errorCode());
        assertEquals(List.of(), events);
    }

    /** The example of docs/architecture.md, "The policy chain", as it is printed there. */
    public static final class PartitionCap implements Policy {
        @Override
        public void register(Hooks hooks) {
            hooks.onRequest(CreateTopicsRequestData.class, (request, context) -> {
                for (CreatableTopic topic : request.topics()) {
                    if (topic.numPartitions() > 100) {
                        return context.now(context.error(Errors.POLICY_VIOLATION));
                    }
                }
                return context.forward();
            });
        }
    }

    /** Reads every request and answer, recording it, changing nothing. */
    private final class Recording implements RequestPolicy, AnswerPolicy {
        private final String name;

        Recording(String name) {
            this.name = name;
        }

        @Override
        public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
            events.add(name + " reads " + context.api().name);
            return context.forward();
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            events.add(name + " reads its answer");
            return context.keep();
        }

        @Override
        public void unanswered(PolicyContext context) {
            events.add(name + " got no answer");
        }
    }

    /** Names the failing policy in the close reason. */
    private record Failing(RequestPolicy decision) implements RequestPolicy {
        @Override
        public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
            return decision.onRequest(body, context);
        }
    }

    /** A policy whose registration is {@code register}. */
    private static Policy policy(Consumer<Hooks> register) {
        return new Policy() {
            @Override
            public void register(Hooks hooks) {
                register.accept(hooks);
            }
        };
    }

    private RequestFrame produce(String topic, String value) {
        RequestFrame request = KafkaWire.requestFrame(new ProduceRequest.Builder(VERSION, VERSION,
                KafkaWire.produceData(topic, 0, "k", value)).build(VERSION), 42, "producer");
        requests.add(request);
        return request;
    }

    private Reply handle(PolicyChain chain, RequestFrame request) throws Exception {
        RequestHandler handler = chain.around(route);
        Future<Reply> reply = loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS);
        return reply.get(5, TimeUnit.SECONDS);
    }

    /** The Produce answer a client would read; the frame is released. */
    private static ProduceResponseData answerOf(Reply reply) {
        ByteBuf frame = assertInstanceOf(Reply.Send.class, reply).frame();
        return KafkaWire.parseResponseAndRelease(frame, ApiKeys.PRODUCE, VERSION).as(ProduceResponse.class).data();
    }
}
