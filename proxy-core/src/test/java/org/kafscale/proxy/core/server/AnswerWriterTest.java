package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.kafscale.proxy.core.logging.LogFields;
import org.junit.jupiter.api.AfterEach;
import org.kafscale.proxy.core.logging.LogFields;
import org.junit.jupiter.api.Test;

/**
 * The answer writer on an {@link EmbeddedChannel}: the test completes replies in the order it
 * chooses and reads what the client would. Each answer is a broker correlation id (9000) and a
 * marker byte saying which request it answers.
 */
class AnswerWriterTest {
    private static final int BROKER_CORRELATION_ID = 9000;

    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
    private boolean answering = true;
    private int batchesTaken;
    private int closes;
    private final List<ByteBuf> sent = new ArrayList<>();
    private final AnswerWriter writer = new AnswerWriter(ctx, new ConnectionLogs(), () -> "client", LogFields.NONE,
            () -> answering, () -> batchesTaken++, this::closed);

    /** As the connection does: from a closing reply on, nothing more is written. */
    private void closed() {
        closes++;
        answering = false;
        writer.discardAll();
    }

    @AfterEach
    void releaseEverything() {
        writer.discardAll();
        channel.finishAndReleaseAll();
        sent.stream().filter(b -> b.refCnt() > 0).forEach(ByteBuf::release);
    }

    @Test
    void answersAreWrittenInRequestOrderEachUnderItsClientsCorrelationId() {
        // Given three requests
        ResponseOrderer.Slot first = writer.reserve(11);
        ResponseOrderer.Slot second = writer.reserve(12);
        ResponseOrderer.Slot third = writer.reserve(13);

        // When their replies complete third, first, second
        writer.complete(third, Reply.send(answer(3)));
        writer.complete(first, Reply.send(answer(1)));
        writer.complete(second, Reply.send(answer(2)));

        // Then the client reads them in request order under its own ids
        assertEquals(List.of("11:1", "12:2", "13:3"), readAnswers());
        assertEquals(0, writer.waiting());
    }

    @Test
    void answersWaitingForAnEarlierOneCountAsUnreadUntilWritten() {
        // Given two requests, the second answered first with 100 bytes
        ResponseOrderer.Slot first = writer.reserve(1);
        ResponseOrderer.Slot second = writer.reserve(2);
        writer.complete(second, Reply.send(answer(2, 100)));

        // Then nothing is written, and its 108 bytes (with its correlation id and size prefix) count as unread
        assertNull(channel.readOutbound());
        assertEquals(108, writer.heldBytes());
        assertEquals(108, writer.unreadBytes());

        // When the first is answered, both are written and none waits
        writer.complete(first, Reply.send(answer(1, 50)));
        assertEquals(0, writer.heldBytes());
        assertEquals(List.of("1:1", "2:2"), readAnswers());
        assertEquals(0, writer.unreadBytes());
    }

    @Test
    void theLastAnswerOfABatchSaysWhenTheClientTookTheBatch() {
        ResponseOrderer.Slot first = writer.reserve(1);
        ResponseOrderer.Slot second = writer.reserve(2);
        writer.complete(second, Reply.send(answer(2)));
        writer.complete(first, Reply.send(answer(1)));

        assertEquals(1, batchesTaken);
        assertEquals(2, readAnswers().size());
    }

    @Test
    void noneReplyWritesNothingAndDoesNotHoldBackLaterAnswers() {
        ResponseOrderer.Slot first = writer.reserve(1);
        ResponseOrderer.Slot second = writer.reserve(2);
        writer.complete(second, Reply.send(answer(2)));
        writer.complete(first, Reply.NONE);

        assertEquals(List.of("2:2"), readAnswers());
        assertTrue(channel.isOpen());
    }

    @Test
    void sendAndCloseWritesTheAnswerThenClosesAndReleasesTheAnswersBehindIt() {
        // Given two requests, the second answered first
        ResponseOrderer.Slot first = writer.reserve(1);
        ResponseOrderer.Slot second = writer.reserve(2);
        ByteBuf behind = answer(2);
        writer.complete(second, Reply.send(behind));

        // When the first is answered with an answer that closes the connection
        writer.complete(first, new Reply.SendAndClose(answer(1), "not ready"));

        // Then the client reads the first, the connection closes, and the second was released unwritten
        assertEquals(1, closes);
        assertEquals(List.of("1:1"), readAnswers());
        assertFalse(channel.isOpen());
        assertEquals(0, behind.refCnt());
    }

    @Test
    void closeReplyClosesTheConnectionWithoutAnAnswer() {
        ResponseOrderer.Slot only = writer.reserve(1);
        writer.complete(only, new Reply.Close("no answer exists"));

        assertEquals(1, closes);
        assertFalse(channel.isOpen());
        assertNull(channel.readOutbound());
    }

    @Test
    void repliesAfterTheConnectionClosedAreReleasedNotWritten() {
        ResponseOrderer.Slot only = writer.reserve(1);
        answering = false;
        ByteBuf late = answer(1);
        writer.complete(only, Reply.send(late));

        assertEquals(0, late.refCnt());
        assertNull(channel.readOutbound());
    }

    @Test
    void answerTooShortForACorrelationIdIsReleasedAndRefused() {
        ResponseOrderer.Slot only = writer.reserve(1);
        ByteBuf shortAnswer = ByteBufAllocator.DEFAULT.buffer(2).writeShort(7);

        assertThrows(IllegalArgumentException.class, () -> writer.complete(only, Reply.send(shortAnswer)));
        assertEquals(0, shortAnswer.refCnt());
    }

    @Test
    void discardingReleasesTheAnswersThatWait() {
        writer.reserve(1);
        ResponseOrderer.Slot second = writer.reserve(2);
        ByteBuf waiting = answer(2);
        writer.complete(second, Reply.send(waiting));

        writer.discardAll();

        assertEquals(0, waiting.refCnt());
        assertEquals(0, writer.heldBytes());
        assertEquals(0, writer.waiting());
    }

    private ByteBuf answer(int marker) {
        return answer(marker, 1);
    }

    /** An answer in a leak-tracked buffer: the broker's id, then {@code bytes} bytes (the marker, padding). */
    private ByteBuf answer(int marker, int bytes) {
        ByteBuf frame = ByteBufAllocator.DEFAULT.buffer(Integer.BYTES + bytes).writeInt(BROKER_CORRELATION_ID)
                .writeByte(marker).writeZero(bytes - 1);
        sent.add(frame);
        return frame;
    }

    /** What the client read: "correlation id:marker" per answer. */
    private List<String> readAnswers() {
        List<String> answers = new ArrayList<>();
        ByteBuf frame;
        while ((frame = channel.readOutbound()) != null) {
            answers.add(frame.getInt(frame.readerIndex()) + ":" + frame.getByte(frame.readerIndex() + Integer.BYTES));
            frame.release();
        }
        return answers;
    }
}
