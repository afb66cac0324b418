package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.concurrent.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestHeaderDecoder;
import org.kafscale.proxy.core.codec.ResponseFrames;

/**
 * The client connection as a pipeline (frame decoder, size prepender, header decoder, connection
 * handler) over an {@link EmbeddedChannel}, with a request handler whose replies the test completes
 * in the order it chooses. Answers are Metadata v12 answers whose cluster id says which request
 * they answer; each is encoded with a broker-side correlation id the proxy must replace.
 */
class ClientConnectionHandlerTest {

    private static final short METADATA_VERSION = 12;
    private static final int BROKER_CORRELATION_ID = 9000;

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
    private EmbeddedChannel channel = connection(handler, 16);

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
        }, 16);

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
        channel = connection(handler, 2);
        sendMetadataRequests(1, 2);
        boolean readingAtLimit = channel.config().isAutoRead();

        // When the first is answered
        pending.get(0).reply().setSuccess(metadataAnswer("first"));

        // Then reading was paused at the limit and resumes now
        assertFalse(readingAtLimit);
        assertTrue(channel.config().isAutoRead());
    }

    private static EmbeddedChannel connection(RequestHandler requestHandler, int maxInFlight) {
        return new EmbeddedChannel(
                new KafkaFrameDecoder(KafkaWire.MAX_FRAME_BYTES, "client"),
                new LengthFieldPrepender(4),
                new RequestHeaderDecoder(),
                new ClientConnectionHandler(RequestHandlers.shared(requestHandler),
                        new BackendConnector(KafkaWire.MAX_FRAME_BYTES, Duration.ofSeconds(1)), maxInFlight,
                        ClientConnectionHandler.ConnectionListener.NONE));
    }

    /** Writes Metadata v12 requests with these correlation ids, all in one read, as a client would. */
    private void sendMetadataRequests(int... correlationIds) {
        List<ByteBuf> framed = new ArrayList<>();
        for (int correlationId : correlationIds) {
            MetadataRequest request = new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build(METADATA_VERSION);
            framed.add(KafkaWire.sizePrefixed(KafkaWire.requestBytes(request, correlationId, "client")));
        }
        channel.writeInbound(Unpooled.wrappedBuffer(framed.toArray(ByteBuf[]::new)));
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
            KafkaWire.Response response = KafkaWire.parseResponseAndRelease(frame, ApiKeys.METADATA, METADATA_VERSION);
            answers.add(new Answer(response.correlationId(), response.as(MetadataResponse.class).data().clusterId()));
        }
        return answers;
    }
}
