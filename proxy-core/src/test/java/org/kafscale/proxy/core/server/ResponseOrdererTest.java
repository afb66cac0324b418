package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ResponseOrdererTest {

    private final ResponseOrderer orderer = new ResponseOrderer();
    private final List<ResponseOrderer.Slot> written = new ArrayList<>();

    @AfterEach
    void releaseWrittenReplies() {
        written.forEach(slot -> slot.reply.discard());
    }

    @Test
    void repliesCompletedOutOfOrderAreHandedToTheWriterInReservationOrder() {
        // Given three reserved slots
        ResponseOrderer.Slot first = orderer.reserve(1);
        ResponseOrderer.Slot second = orderer.reserve(2);
        ResponseOrderer.Slot third = orderer.reserve(3);

        // When their replies complete third, first, second
        orderer.complete(third, send(), written::add);
        orderer.complete(first, send(), written::add);
        orderer.complete(second, send(), written::add);

        // Then the writer sees them in the order they were reserved
        assertEquals(List.of(1, 2, 3), writtenCorrelationIds());
        assertEquals(0, orderer.waiting());
    }

    @Test
    void completedLaterSlotWaitsForAnEarlierPendingOne() {
        // Given two reserved slots
        ResponseOrderer.Slot first = orderer.reserve(1);
        ResponseOrderer.Slot second = orderer.reserve(2);

        // When only the later one completes
        orderer.complete(second, send(), written::add);

        // Then nothing is written and both still wait
        assertEquals(List.of(), writtenCorrelationIds());
        assertEquals(2, orderer.waiting());
        orderer.complete(first, send(), written::add);
    }

    @Test
    void completingTheHeadReleasesEveryReplyQueuedBehindIt() {
        // Given a pending first slot and a completed second one
        ResponseOrderer.Slot first = orderer.reserve(10);
        ResponseOrderer.Slot second = orderer.reserve(20);
        ResponseOrderer.Slot third = orderer.reserve(30);
        orderer.complete(second, send(), written::add);

        // When the first completes
        orderer.complete(first, send(), written::add);

        // Then both go out in order, and the still pending third keeps its place
        assertEquals(List.of(10, 20), writtenCorrelationIds());
        assertEquals(1, orderer.waiting());
        orderer.complete(third, send(), written::add);
    }

    @Test
    void writerReceivesTheReplyRecordedForEachSlot() {
        // Given a reserved slot
        ResponseOrderer.Slot slot = orderer.reserve(5);
        Reply reply = send();

        // When it completes
        orderer.complete(slot, reply, written::add);

        // Then the writer gets the slot with that reply and the client's correlation id
        assertEquals(1, written.size());
        assertSame(reply, written.get(0).reply);
        assertEquals(5, written.get(0).clientCorrelationId);
    }

    @Test
    void discardAllReleasesRepliesThatWereWaiting() {
        // Given a pending first slot and a completed second one holding a buffer
        orderer.reserve(1);
        ResponseOrderer.Slot second = orderer.reserve(2);
        ByteBuf waitingBuffer = ByteBufAllocator.DEFAULT.buffer().writeInt(2);
        orderer.complete(second, Reply.send(waitingBuffer), written::add);

        // When everything is discarded
        orderer.discardAll();

        // Then the waiting buffer is released and no slot is left
        assertEquals(0, waitingBuffer.refCnt());
        assertEquals(0, orderer.waiting());
        assertEquals(List.of(), writtenCorrelationIds());
    }

    private List<Integer> writtenCorrelationIds() {
        return written.stream().map(slot -> slot.clientCorrelationId).toList();
    }

    private static Reply send() {
        return Reply.send(ByteBufAllocator.DEFAULT.buffer().writeInt(0));
    }
}
