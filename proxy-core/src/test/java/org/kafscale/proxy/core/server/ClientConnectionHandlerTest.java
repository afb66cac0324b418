package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.policy.RequestPolicy;

/**
 * The client connection as a pipeline (frame decoder, size prepender, header decoder, connection
 * handler) over an {@link EmbeddedChannel}, with a request handler whose replies the test completes
 * in the order it chooses. Answers are Metadata v12 answers whose cluster id says which request
 * they answer (or, for answers the proxy makes up, the error they carry); each is encoded with a
 * broker-side correlation id the proxy must replace. The channel's clock is frozen: a test moves
 * it past a request's deadline with {@link EmbeddedChannel#advanceTimeBy}.
 */
class ClientConnectionHandlerTest {

    private static final short METADATA_VERSION = 12;
    private static final int BROKER_CORRELATION_ID = 9000;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** When the connection gives up on a request whose handler named no broker hold. */
    private static final Duration DEADLINE = REQUEST_TIMEOUT.plus(ConnectionRequests.DEADLINE_MARGIN);
    private static final Duration READ_DEADLINE = Duration.ofSeconds(20);

    /** One request the fake handler received, and the reply the test completes. */
    private record Pending(RequestFrame request, Promise<Reply> reply) {
    }

    /** One answer the client read: its correlation id and the marker naming the request it answers. */
    private record Answer(int correlationId, String answers) {
    }

    private final List<Pending> pending = new ArrayList<>();
    private final RequestHandler handler = (context, request) -> {
        Promise<Reply> reply = context.newReply();
        pending.add(new Pending(request, reply));
        return reply;
    };
    private EmbeddedChannel channel = connection(handler, 16, ConnectionListener.NONE);

    @AfterEach
    void closeAndReleaseEverything() {
        channel.finishAndReleaseAll();
        // Replies still open complete now, after the close: their request frames are released then.
        pending.stream().filter(p -> !p.reply().isDone()).forEach(p -> p.reply().setSuccess(Reply.NONE));
    }

    @Test
    void answersAreWrittenInRequestOrderWhateverOrderRepliesComplete() {
        // Given three requests in one read
        sendMetadataRequests(11, 12, 13);

        // When their replies complete third, first, second
        pending.get(2).reply().setSuccess(metadataAnswer("third"));
        pending.get(0).reply().setSuccess(metadataAnswer("first"));
        pending.get(1).reply().setSuccess(metadataAnswer("second"));

        // Then the client reads them in the order it asked, each under its own correlation id
        assertEquals(List.of(new Answer(11, "first"), new Answer(12, "second"), new Answer(13, "third")), answers());
    }

    @Test
    void answerCarriesTheClientsCorrelationIdNotTheOneItWasEncodedWith() {
        // Given a request with correlation id 42
        sendMetadataRequests(42);

        // When its reply, encoded with correlation id 9000, completes
        pending.get(0).reply().setSuccess(metadataAnswer("only"));

        // Then the client reads it under 42
        assertEquals(List.of(new Answer(42, "only")), answers());
    }

    @Test
    void laterAnswerIsHeldWhileAnEarlierReplyIsPending() {
        // Given two requests
        sendMetadataRequests(1, 2);

        // When only the second reply completes
        pending.get(1).reply().setSuccess(metadataAnswer("second"));

        // Then nothing is written yet
        assertEquals(List.of(), answers());
    }

    @Test
    void noneReplyWritesNothingAndKeepsTheConnectionOpen() {
        // Given a Produce request with acks=0
        sendProduceWithoutAcks(5);

        // When its reply is "no answer"
        pending.get(0).reply().setSuccess(Reply.NONE);

        // Then no byte is written and the connection stays open
        assertEquals(List.of(), answers());
        assertTrue(channel.isOpen());
    }

    @Test
    void noneReplyDoesNotBlockTheAnswersAfterIt() {
        // Given a Produce with acks=0 followed by a Metadata request
        sendProduceWithoutAcks(1);
        sendMetadataRequests(2);

        // When the Metadata reply completes first and then the Produce's "no answer"
        pending.get(1).reply().setSuccess(metadataAnswer("metadata"));
        pending.get(0).reply().setSuccess(Reply.NONE);

        // Then the Metadata answer is written
        assertEquals(List.of(new Answer(2, "metadata")), answers());
    }

    @Test
    void sendAndCloseWritesTheAnswerThenClosesTheConnection() {
        // Given a request
        sendMetadataRequests(8);

        // When its reply is "answer, then close"
        pending.get(0).reply().setSuccess(new Reply.SendAndClose(metadataFrame("last words"), "not ready"));

        // Then the client reads the answer and the connection is closed
        assertEquals(List.of(new Answer(8, "last words")), answers());
        assertFalse(channel.isOpen());
    }

    @Test
    void answersQueuedBehindSendAndCloseAreReleasedNotWritten() {
        // Given two requests, the second already answered and waiting for the first
        sendMetadataRequests(1, 2);
        ByteBuf waiting = metadataFrame("never sent");
        pending.get(1).reply().setSuccess(Reply.send(waiting));

        // When the first reply is "answer, then close"
        pending.get(0).reply().setSuccess(new Reply.SendAndClose(metadataFrame("closing"), "not ready"));

        // Then only the first answer is written and the waiting one is released
        assertEquals(List.of(new Answer(1, "closing")), answers());
        assertEquals(0, waiting.refCnt());
    }

    @Test
    void closeReplyClosesTheConnectionWithoutAnAnswer() {
        // Given a request
        sendMetadataRequests(3);

        // When its reply is "close"
        pending.get(0).reply().setSuccess(new Reply.Close("no answer exists"));

        // Then nothing is written and the connection is closed
        assertEquals(List.of(), answers());
        assertFalse(channel.isOpen());
    }

    @Test
    void failedReplyClosesTheConnection() {
        // Given a request
        sendMetadataRequests(3);

        // When its reply fails
        pending.get(0).reply().setFailure(new IllegalStateException("broker went away"));

        // Then nothing is written and the connection is closed
        assertEquals(List.of(), answers());
        assertFalse(channel.isOpen());
    }

    @Test
    void handlerThatThrowsClosesTheConnectionAndReleasesTheRequest() {
        // Given a handler that throws
        List<RequestFrame> seen = new ArrayList<>();
        channel.finishAndReleaseAll();
        channel = connection((context, request) -> {
            seen.add(request);
            throw new IllegalStateException("bug in a router");
        }, 16, ConnectionListener.NONE);

        // When a request arrives
        sendMetadataRequests(4);

        // Then the connection is closed and the request frame released
        assertFalse(channel.isOpen());
        assertEquals(0, seen.get(0).frame().refCnt());
    }

    @Test
    void requestFrameIsReleasedOnceItsReplyCompletes() {
        // Given a request whose reply is pending
        sendMetadataRequests(6);
        ByteBuf frame = pending.get(0).request().frame();
        int whilePending = frame.refCnt();

        // When the reply completes
        pending.get(0).reply().setSuccess(metadataAnswer("done"));

        // Then the frame was held while pending and is released now
        assertEquals(1, whilePending);
        assertEquals(0, frame.refCnt());
    }

    @Test
    void replyCompletingAfterTheClientDisconnectedIsReleasedNotWritten() {
        // Given a request whose reply is pending when the client disconnects
        sendMetadataRequests(7);
        channel.close();
        ByteBuf late = metadataFrame("too late");

        // When the reply completes
        pending.get(0).reply().setSuccess(Reply.send(late));

        // Then it is released and nothing is written
        assertEquals(0, late.refCnt());
        assertEquals(List.of(), answers());
    }

    @Test
    void readingPausesAtTheInFlightLimitAndResumesWhenAnAnswerIsWritten() {
        // Given a connection that allows two requests in flight, with two waiting
        channel.finishAndReleaseAll();
        channel = connection(handler, 2, ConnectionListener.NONE);
        sendMetadataRequests(1, 2);
        boolean readingAtLimit = channel.config().isAutoRead();

        // When the first is answered
        pending.get(0).reply().setSuccess(metadataAnswer("first"));

        // Then reading was paused at the limit and resumes now
        assertFalse(readingAtLimit);
        assertTrue(channel.config().isAutoRead());
    }

    @Test
    void answersWaitingForAnEarlierOneCountInTheUnreadAnswerBudgetAndPauseReading() {
        // Given a listener whose connections may hold 1000 bytes of unread answers, and the
        // reasons reading was paused for
        List<ReadPause> pauses = new ArrayList<>();
        ListenerLimits d = ListenerLimits.DEFAULTS;
        ConnectionBudgets budgets = new ConnectionBudgets(new ListenerLimits(d.maxConnections(),
                d.maxConnectionsPerIp(), d.fdHeadroom(), d.partialFrameBytes(), d.frameReadTimeout(), d.idleTimeout(),
                d.unreadAnswerBytesPerConnection(), 1000));
        channel.finishAndReleaseAll();
        channel = connection(connectionHandler(handler, 16, new ConnectionListener() {
            @Override
            public void readsPaused(ReadPause reason, long nanos) {
                pauses.add(reason);
            }
        }, budgets));
        sendMetadataRequests(1, 2);

        // When the second is answered first, with 2000 bytes
        pending.get(1).reply().setSuccess(metadataAnswer("x".repeat(2000)));

        // Then that answer counts as unread though nothing is written, and reading pauses
        assertTrue(budgets.unreadAnswers().total() > 2000, "held " + budgets.unreadAnswers().total());
        assertFalse(channel.config().isAutoRead());
        assertEquals(List.of(), answers());

        // When the first is answered, both are written, and reading resumes for the budget's reason
        pending.get(0).reply().setSuccess(metadataAnswer("first"));
        assertEquals(List.of(new Answer(1, "first"), new Answer(2, "x".repeat(2000))), answers());
        assertEquals(0, budgets.unreadAnswers().total());
        assertTrue(channel.config().isAutoRead());
        assertEquals(List.of(ReadPause.UNREAD_ANSWER_BUDGET), pauses);
    }

    @Test
    void aThrottledClientIsAnsweredAndThenNotReadUntilItsThrottleHasPassed() {
        // Given a connection whose handler throttles it for 500 ms (as a quota does) and answers at once,
        // and the reasons reading was paused for, with how long
        List<String> pauses = new ArrayList<>();
        RequestHandler throttling = (context, request) -> {
            context.throttle(500);
            return Replies.now(context.loop(), metadataAnswer("throttled"));
        };
        channel.finishAndReleaseAll();
        channel = connection(throttling, 16, new ConnectionListener() {
            @Override
            public void readsPaused(ReadPause reason, long nanos) {
                pauses.add(reason.label() + " " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms");
            }
        });

        // When a request comes
        sendMetadataRequests(1);

        // Then its answer is written and reading pauses for the throttle
        assertEquals(List.of(new Answer(1, "throttled")), answers());
        assertFalse(channel.config().isAutoRead());

        // When 499 ms pass, it stays paused; at 500 ms reading resumes, and the pause is reported as a throttle
        advanceTime(Duration.ofMillis(499));
        assertFalse(channel.config().isAutoRead());
        advanceTime(Duration.ofMillis(1));
        assertTrue(channel.config().isAutoRead());
        assertEquals(List.of("throttled 500 ms"), pauses);
    }

    /** The security review's H2 probe (A25) in one read: 391 were in flight with the cap at 100. */
    @Test
    void framesReadPastTheInFlightCapInOneReadWaitUntilASlotFrees() {
        // Given a connection that allows two requests in flight
        channel.finishAndReleaseAll();
        channel = connection(handler, 2, ConnectionListener.NONE);

        // When five requests arrive in one read
        sendMetadataRequests(1, 2, 3, 4, 5);

        // Then only two reach the handler, and each answer lets one more through, in order
        assertEquals(2, pending.size());
        pending.get(0).reply().setSuccess(metadataAnswer("first"));
        assertEquals(3, pending.size());
        assertEquals(3, pending.get(2).request().correlationId());
        pending.get(1).reply().setSuccess(metadataAnswer("second"));
        pending.get(2).reply().setSuccess(metadataAnswer("third"));
        assertEquals(5, pending.size());
        assertFalse(channel.config().isAutoRead(), "reading stays paused while two are in flight");
        assertEquals(List.of(new Answer(1, "first"), new Answer(2, "second"), new Answer(3, "third")), answers());
    }

    /** The security review's A7 probe: a 60-byte frame sent one byte per second. */
    @Test
    void frameTrickledInSlowerThanTheReadTimeoutClosesTheConnection() {
        // Given a connection with a 10 s frame read timeout, and the size of a 60-byte frame sent
        channel.finishAndReleaseAll();
        channel = connection(handler, 16, ConnectionListener.NONE,
                timeouts(Duration.ofSeconds(10), Duration.ofMinutes(10)));
        channel.writeInbound(Unpooled.buffer(4).writeInt(60));

        // When a byte arrives every second for 11 seconds
        for (int second = 0; second < 11 && channel.isOpen(); second++) {
            channel.writeInbound(Unpooled.buffer(1).writeByte(0));
            advanceTime(Duration.ofSeconds(1));
        }

        // Then the connection was closed, although bytes kept arriving, and nothing was dispatched
        assertFalse(channel.isOpen());
        assertEquals(List.of(), pending);
    }

    @Test
    void requestsThatArriveWholeKeepTheConnectionOpenPastTheReadTimeout() {
        // Given a connection with a 10 s frame read timeout
        channel.finishAndReleaseAll();
        channel = connection(handler, 16, ConnectionListener.NONE,
                timeouts(Duration.ofSeconds(10), Duration.ofMinutes(10)));

        // When a request split over two reads arrives every 6 seconds for a minute, each answered
        for (int i = 0; i < 10; i++) {
            ByteBuf wire = metadataRequests(i);
            channel.writeInbound(wire.readRetainedSlice(10));
            advanceTime(Duration.ofSeconds(3));
            channel.writeInbound(wire);
            pending.get(i).reply().setSuccess(metadataAnswer("answer " + i));
            advanceTime(Duration.ofSeconds(3));
        }

        // Then the connection is open and every request was answered
        assertTrue(channel.isOpen());
        assertEquals(10, answers().size());
    }

    @Test
    void connectionWithNothingInFlightIsClosedAfterTheIdleTimeout() {
        // Given a connection with a one-minute idle timeout whose one request was answered
        channel.finishAndReleaseAll();
        channel = connection(handler, 16, ConnectionListener.NONE,
                timeouts(Duration.ofSeconds(10), Duration.ofMinutes(1)));
        sendMetadataRequests(1);
        pending.get(0).reply().setSuccess(metadataAnswer("only"));
        advanceTime(Duration.ofSeconds(59));
        boolean openBefore = channel.isOpen();

        // When the minute has passed
        advanceTime(Duration.ofSeconds(2));

        // Then it was open until then and is closed now
        assertTrue(openBefore);
        assertFalse(channel.isOpen());
    }

    @Test
    void connectionThatNeverSendsAWholeRequestIsClosedAfterTheUnauthenticatedTimeoutAndCounted() {
        // Given a connection with the default ten-second unauthenticated timeout that sends nothing
        channel.finishAndReleaseAll();
        List<ConnectionTimeout> timedOut = new ArrayList<>();
        channel = connection(handler, 16, new ConnectionListener() {
            @Override
            public void timedOut(ConnectionTimeout timeout) {
                timedOut.add(timeout);
            }
        }, ListenerLimits.DEFAULTS);
        advanceTime(ListenerLimits.DEFAULT_UNAUTHENTICATED_TIMEOUT.minusSeconds(1));
        boolean openBefore = channel.isOpen();

        // When the timeout has passed
        advanceTime(Duration.ofSeconds(2));

        // Then it was open until then, and is closed now, counted as unauthenticated
        assertTrue(openBefore);
        assertFalse(channel.isOpen());
        assertEquals(List.of(ConnectionTimeout.UNAUTHENTICATED), timedOut);
    }

    @Test
    void liveTimeoutsReachConnectionsAcceptedAfterTheChangeAndLeaveTheOpenOnesAlone() {
        // Given a connection accepted with the default ten-second unauthenticated timeout
        channel.finishAndReleaseAll();
        ConnectionBudgets budgets = new ConnectionBudgets(ListenerLimits.DEFAULTS);
        channel = connection(connectionHandler(handler, 16, ConnectionListener.NONE, budgets));
        // When the listener's unauthenticated timeout is lowered to one second and another connection is accepted
        ListenerLimits d = ListenerLimits.DEFAULTS;
        budgets.applyTimeouts(new ListenerLimits(d.maxConnections(), d.maxConnectionsPerIp(), d.fdHeadroom(),
                d.partialFrameBytes(), d.frameReadTimeout(), d.idleTimeout(), d.unreadAnswerBytesPerConnection(),
                d.unreadAnswerBytes(), Duration.ofSeconds(1)));
        EmbeddedChannel later = connection(connectionHandler(handler, 16, ConnectionListener.NONE, budgets));
        try {
            advanceTime(Duration.ofSeconds(2));
            later.advanceTimeBy(2, TimeUnit.SECONDS);
            later.runScheduledPendingTasks();

            // Then the new connection is closed by the new value, and the open one keeps its own
            assertFalse(later.isOpen());
            assertTrue(channel.isOpen());
        } finally {
            later.finishAndReleaseAll();
        }
    }

    @Test
    void aWholeFirstRequestStopsTheUnauthenticatedTimeoutEvenWhileItsAnswerIsAwaited() {
        // Given a connection whose first request its broker has not answered yet
        channel.finishAndReleaseAll();
        channel = connection(handler, 16, ConnectionListener.NONE, ListenerLimits.DEFAULTS);
        sendMetadataRequests(1);

        // When a minute passes
        advanceTime(Duration.ofMinutes(1));

        // Then it is open: the client spoke, and the wait is not its doing
        assertTrue(channel.isOpen());
    }

    @Test
    void connectionWaitingForAnAnswerIsNotClosedAsIdle() {
        // Given a connection with a one-minute idle timeout and a request its broker holds for ten
        channel.finishAndReleaseAll();
        RequestHandler holding = (context, request) -> {
            context.expectHeldFor(Duration.ofMinutes(10).toMillis());
            return handler.handle(context, request);
        };
        channel = connection(holding, 16, ConnectionListener.NONE,
                timeouts(Duration.ofSeconds(10), Duration.ofMinutes(1)));
        sendMetadataRequests(1);

        // When five minutes pass
        advanceTime(Duration.ofMinutes(5));

        // Then the connection is still open
        assertTrue(channel.isOpen());
    }

    @Test
    void requestWhoseHandlerNeverAnswersGetsRequestTimedOutAtItsDeadlineAndTheNextAnswerFollows() {
        // Given two requests: the first one's handler never completes, the second is answered
        sendMetadataRequests(1, 2);
        pending.get(1).reply().setSuccess(metadataAnswer("second"));

        // When the request timeout and the margin have passed
        advanceTime(DEADLINE);

        // Then the client reads REQUEST_TIMED_OUT for the first request, then the second's answer
        assertEquals(List.of(new Answer(1, "REQUEST_TIMED_OUT"), new Answer(2, "second")), answers());
    }

    @Test
    void holdNamedWhileHandlingPushesTheDeadlineBackByThatHold() {
        // Given a handler saying its broker may hold the request a minute longer than the request timeout
        Duration hold = Duration.ofMinutes(1);
        channel.finishAndReleaseAll();
        channel = connection((context, request) -> {
            context.expectHeldFor(hold.toMillis());
            return handler.handle(context, request);
        }, 16, ConnectionListener.NONE);
        sendMetadataRequests(1);

        // When the request timeout and the margin pass, and then the hold
        advanceTime(DEADLINE);
        List<Answer> beforeTheHoldEnds = answers();
        advanceTime(hold);

        // Then nothing was answered before the hold ran out, and REQUEST_TIMED_OUT once it had
        assertEquals(List.of(), beforeTheHoldEnds);
        assertEquals(List.of(new Answer(1, "REQUEST_TIMED_OUT")), answers());
    }

    @Test
    void holdNamedByTheRouteAfterAPolicyDecidedLaterStillPushesTheDeadlineBack() {
        // Given a policy that decides each request later, in front of a route saying its broker may
        // hold the request a minute longer than the request timeout (as a Fetch's max wait does)
        Duration hold = Duration.ofMinutes(1);
        List<Promise<RequestOutcome>> undecided = new ArrayList<>();
        RequestPolicy later = (body, context) -> {
            Promise<RequestOutcome> outcome = context.newOutcome();
            undecided.add(outcome);
            return outcome;
        };
        RequestHandler route = (context, request) -> {
            context.expectHeldFor(hold.toMillis());
            return handler.handle(context, request);
        };
        channel.finishAndReleaseAll();
        channel = connection(PolicyChain.of(later).around(route), 16, ConnectionListener.NONE);
        sendMetadataRequests(1);

        // When the policy lets the request on a second later, and the request timeout and the
        // margin pass, and then the hold
        advanceTime(Duration.ofSeconds(1));
        undecided.get(0).setSuccess(RequestOutcome.forward());
        advanceTime(DEADLINE);
        List<Answer> beforeTheHoldEnds = answers();
        advanceTime(hold);

        // Then nothing was answered before the hold ran out, and REQUEST_TIMED_OUT once it had
        assertEquals(List.of(), beforeTheHoldEnds);
        assertEquals(List.of(new Answer(1, "REQUEST_TIMED_OUT")), answers());
    }

    @Test
    void aLaterRequestWithAnEarlierDeadlineTimesOutAtItsOwnDeadline() {
        // Given a request its broker may hold a minute past the request timeout, then a plain one,
        // neither answered by its handler, on a connection that counts answered requests
        Duration hold = Duration.ofMinutes(1);
        AtomicInteger completed = new AtomicInteger();
        channel.finishAndReleaseAll();
        channel = connection((context, request) -> {
            if (request.correlationId() == 1) {
                context.expectHeldFor(hold.toMillis());
            }
            return handler.handle(context, request);
        }, 16, new ConnectionListener() {
            @Override
            public void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes,
                                         int answerBytes, boolean closedConnection) {
                completed.incrementAndGet();
            }
        });
        sendMetadataRequests(1, 2);

        // When the request timeout and the margin pass, and then the hold
        advanceTime(DEADLINE);
        int answeredAtThePlainDeadline = completed.get();
        List<Answer> readAtThePlainDeadline = answers();
        advanceTime(hold);

        // Then the plain request was answered at its own deadline (its answer waiting, in order,
        // behind the held one), and the held one once its hold ran out
        assertEquals(1, answeredAtThePlainDeadline);
        assertEquals(List.of(), readAtThePlainDeadline);
        assertEquals(List.of(new Answer(1, "REQUEST_TIMED_OUT"), new Answer(2, "REQUEST_TIMED_OUT")), answers());
        assertEquals(2, completed.get());
    }

    @Test
    void replyArrivingAfterTheDeadlineIsReleasedNotWritten() {
        // Given a request answered REQUEST_TIMED_OUT at its deadline
        sendMetadataRequests(1);
        advanceTime(DEADLINE);
        List<Answer> atTheDeadline = answers();
        ByteBuf late = metadataFrame("too late");

        // When its handler's reply arrives after all
        pending.get(0).reply().setSuccess(Reply.send(late));

        // Then it is released, and the client read only the timeout answer
        assertEquals(0, late.refCnt());
        assertEquals(List.of(new Answer(1, "REQUEST_TIMED_OUT")), atTheDeadline);
        assertEquals(List.of(), answers());
    }

    @Test
    void requestFrameStaysReadableAfterItsDeadlineUntilItsHandlerCompletes() {
        // Given a request answered REQUEST_TIMED_OUT at its deadline while its handler still works on it
        sendMetadataRequests(6);
        ByteBuf frame = pending.get(0).request().frame();
        advanceTime(DEADLINE);
        int afterTheDeadline = frame.refCnt();

        // When the handler completes
        pending.get(0).reply().setSuccess(Reply.NONE);

        // Then the frame was still held after the deadline (routers read it) and is released now
        assertEquals(1, afterTheDeadline);
        assertEquals(0, frame.refCnt());
    }

    @Test
    void requestAnsweredInTimeIsNotAnsweredAgainAtItsDeadline() {
        // Given a request answered in time, on a connection that counts answered requests
        AtomicInteger completed = new AtomicInteger();
        channel.finishAndReleaseAll();
        channel = connection(handler, 16, new ConnectionListener() {
            @Override
            public void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes,
                                         int answerBytes, boolean closedConnection) {
                completed.incrementAndGet();
            }
        });
        sendMetadataRequests(1);
        pending.get(0).reply().setSuccess(metadataAnswer("in time"));
        List<Answer> inTime = answers();

        // When its deadline would have passed
        advanceTime(DEADLINE);

        // Then the client read its answer and nothing more, and the request was answered once
        assertEquals(List.of(new Answer(1, "in time")), inTime);
        assertEquals(List.of(), answers());
        assertEquals(1, completed.get());
        assertTrue(channel.isOpen());
    }

    @Test
    void connectionListenerThatThrowsDoesNotStallLaterAnswers() {
        // Given a connection whose listener throws on every completed request
        channel.finishAndReleaseAll();
        channel = connection(handler, 16, new ConnectionListener() {
            @Override
            public void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes,
                                         int answerBytes, boolean closedConnection) {
                throw new IllegalStateException("bug in a metrics listener");
            }
        });
        sendMetadataRequests(1, 2);

        // When both replies complete
        pending.get(0).reply().setSuccess(metadataAnswer("first"));
        pending.get(1).reply().setSuccess(metadataAnswer("second"));

        // Then both answers are written, in order
        assertEquals(List.of(new Answer(1, "first"), new Answer(2, "second")), answers());
    }

    @Test
    void answerThatCannotTakeACorrelationIdClosesTheConnectionAndIsReleased() {
        // Given two requests
        sendMetadataRequests(1, 2);
        ByteBuf waiting = metadataFrame("never sent");
        pending.get(1).reply().setSuccess(Reply.send(waiting));
        ByteBuf broken = ByteBufAllocator.DEFAULT.buffer(2).writeShort(0);

        // When the first reply is two bytes, too short to carry a correlation id
        pending.get(0).reply().setSuccess(Reply.send(broken));

        // Then nothing is written, the connection closes, and both answers are released
        assertEquals(List.of(), answers());
        assertFalse(channel.isOpen());
        assertEquals(0, broken.refCnt());
        assertEquals(0, waiting.refCnt());
    }

    @Test
    void requestReadAfterTheConnectionClosedIsReleasedNotDispatched() {
        // Given a pipeline in which a handler before the connection closes it while passing a request on
        List<RequestFrame> passedOn = new ArrayList<>();
        ChannelHandler closesFirst = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                passedOn.add((RequestFrame) msg);
                ctx.close();
                ctx.fireChannelRead(msg);
            }
        };
        channel.finishAndReleaseAll();
        channel = TestConnections.channel(closesFirst, connectionHandler(handler, 16, ConnectionListener.NONE));

        // When a request arrives
        sendMetadataRequests(1);

        // Then the handler never sees it and its frame is released
        assertEquals(List.of(), pending);
        assertEquals(0, passedOn.get(0).frame().refCnt());
    }

    /**
     * A real listener on loopback with one event loop: {@link EmbeddedChannel}'s loop counts every
     * thread as its own, so only a real loop shows which thread a reply is handled on.
     */
    @Test
    void replyCompletedOnAnotherThreadIsWrittenInOrderFromTheConnectionsEventLoop() throws Exception {
        // Given a listener whose handler returns futures that complete on whichever thread completes them
        BlockingQueue<Promise<Reply>> replies = new LinkedBlockingQueue<>();
        RequestHandler offLoopHandler = (context, request) -> {
            Promise<Reply> reply = ImmediateEventExecutor.INSTANCE.newPromise();
            // Handed to the test by a task that runs after this read, once the connection listens to the future.
            context.loop().execute(() -> replies.add(reply));
            return reply;
        };
        Queue<Boolean> completedOnTheLoop = new ConcurrentLinkedQueue<>();
        EventLoopGroup workers = NettyTransport.newEventLoopGroup(1, "client-connection-test");
        EventLoop loop = workers.next();
        ConnectionListener listener = new ConnectionListener() {
            @Override
            public void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes,
                                         int answerBytes, boolean closedConnection) {
                completedOnTheLoop.add(loop.inEventLoop());
            }
        };
        ListenerSettings settings = new ListenerSettings(new InetSocketAddress("127.0.0.1", 0),
                KafkaWire.MAX_FRAME_BYTES, 16, REQUEST_TIMEOUT, Duration.ofSeconds(1), 1);
        KafkaProxyServer server = KafkaProxyServer.start(settings, workers, RequestHandlers.shared(offLoopHandler),
                new BackendConnector(KafkaWire.MAX_FRAME_BYTES, Duration.ofSeconds(1)), listener);
        try (Socket client = new Socket("127.0.0.1", server.localAddress().getPort())) {
            client.setSoTimeout((int) READ_DEADLINE.toMillis());
            writeMetadataRequests(client.getOutputStream(), 1, 2);
            Promise<Reply> first = replies.poll(READ_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            Promise<Reply> second = replies.poll(READ_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);

            // When both replies complete on this test thread, the second first
            second.setSuccess(metadataAnswer("second"));
            first.setSuccess(metadataAnswer("first"));

            // Then the client reads both in request order, and each was handled on the connection's loop
            DataInputStream in = new DataInputStream(client.getInputStream());
            assertEquals(List.of(new Answer(1, "first"), new Answer(2, "second")), List.of(readAnswer(in), readAnswer(in)));
            assertEquals(List.of(true, true), List.copyOf(completedOnTheLoop));
        } finally {
            server.close();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static EmbeddedChannel connection(RequestHandler requestHandler, int maxInFlight,
                                              ConnectionListener listener) {
        return connection(requestHandler, maxInFlight, listener, ListenerLimits.DEFAULTS);
    }

    private static EmbeddedChannel connection(RequestHandler requestHandler, int maxInFlight,
                                              ConnectionListener listener, ListenerLimits limits) {
        return connection(connectionHandler(requestHandler, maxInFlight, listener, limits));
    }

    private static EmbeddedChannel connection(ClientConnectionHandler connectionHandler) {
        return TestConnections.channel(connectionHandler);
    }

    private static ClientConnectionHandler connectionHandler(RequestHandler requestHandler, int maxInFlight,
                                                             ConnectionListener listener) {
        return connectionHandler(requestHandler, maxInFlight, listener, ListenerLimits.DEFAULTS);
    }

    private static ClientConnectionHandler connectionHandler(RequestHandler requestHandler, int maxInFlight,
                                                             ConnectionListener listener,
                                                             ListenerLimits limits) {
        return connectionHandler(requestHandler, maxInFlight, listener, new ConnectionBudgets(limits));
    }

    private static ClientConnectionHandler connectionHandler(RequestHandler requestHandler, int maxInFlight,
                                                             ConnectionListener listener,
                                                             ConnectionBudgets budgets) {
        return TestConnections.handler(RequestHandlers.shared(requestHandler), maxInFlight, REQUEST_TIMEOUT, listener,
                budgets);
    }

    /** The default limits with these two timeouts. */
    private static ListenerLimits timeouts(Duration frameRead, Duration idle) {
        ListenerLimits d = ListenerLimits.DEFAULTS;
        return new ListenerLimits(d.maxConnections(), d.maxConnectionsPerIp(), d.fdHeadroom(), d.partialFrameBytes(),
                frameRead, idle, d.unreadAnswerBytesPerConnection(), d.unreadAnswerBytes());
    }

    private void advanceTime(Duration by) {
        channel.advanceTimeBy(by.toMillis(), TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    /** Writes Metadata v12 requests with these correlation ids, all in one read, as a client would. */
    private void sendMetadataRequests(int... correlationIds) {
        channel.writeInbound(metadataRequests(correlationIds));
    }

    private static void writeMetadataRequests(OutputStream out, int... correlationIds) throws IOException {
        ByteBuf wire = metadataRequests(correlationIds);
        try {
            out.write(ByteBufUtil.getBytes(wire));
            out.flush();
        } finally {
            wire.release();
        }
    }

    /** Size-prefixed Metadata v12 requests for one topic, so that an error answer names its error. */
    private static ByteBuf metadataRequests(int... correlationIds) {
        List<ByteBuf> framed = new ArrayList<>();
        for (int correlationId : correlationIds) {
            MetadataRequest request = new MetadataRequest.Builder(new MetadataRequestData()
                    .setTopics(List.of(new MetadataRequestTopic().setName("orders")))).build(METADATA_VERSION);
            framed.add(KafkaWire.sizePrefixed(KafkaWire.requestBytes(request, correlationId, "client")));
        }
        return Unpooled.wrappedBuffer(framed.toArray(ByteBuf[]::new));
    }

    private void sendProduceWithoutAcks(int correlationId) {
        ProduceRequest request = new ProduceRequest(
                KafkaWire.produceData("orders", 0, "k", "v").setAcks((short) 0), (short) 9);
        channel.writeInbound(KafkaWire.sizePrefixed(KafkaWire.requestBytes(request, correlationId, "producer")));
    }

    private static Reply metadataAnswer(String marker) {
        return Reply.send(metadataFrame(marker));
    }

    /** A Metadata v12 answer frame (no size prefix) in a leak-tracked buffer, marked with {@code marker}. */
    private static ByteBuf metadataFrame(String marker) {
        ByteBuf encoded = ResponseFrames.encode(ApiKeys.METADATA, METADATA_VERSION, BROKER_CORRELATION_ID,
                new MetadataResponseData().setClusterId(marker));
        ByteBuf tracked = ByteBufAllocator.DEFAULT.buffer(encoded.readableBytes()).writeBytes(encoded);
        encoded.release();
        return tracked;
    }

    /** Everything written to the client so far, split into frames and parsed by kafka-clients. */
    private List<Answer> answers() {
        List<Answer> answers = new ArrayList<>();
        for (ByteBuf frame : KafkaWire.splitFrames(KafkaWire.drainOutbound(channel))) {
            answers.add(parseAnswer(frame));
        }
        return answers;
    }

    private static Answer readAnswer(DataInputStream in) throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return parseAnswer(Unpooled.wrappedBuffer(frame));
    }

    /** The answer's correlation id and marker: the cluster id the test set, or the errors of an answer the proxy made. */
    private static Answer parseAnswer(ByteBuf frame) {
        KafkaWire.Response response = KafkaWire.parseResponseAndRelease(frame, ApiKeys.METADATA, METADATA_VERSION);
        MetadataResponse metadata = response.as(MetadataResponse.class);
        String marker = metadata.data().clusterId() != null ? metadata.data().clusterId()
                : metadata.errors().values().stream().map(Enum::name).distinct().collect(Collectors.joining(","));
        return new Answer(response.correlationId(), marker);
    }
}
