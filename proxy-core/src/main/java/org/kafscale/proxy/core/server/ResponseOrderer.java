package org.kafscale.proxy.core.server;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Holds early answers until every earlier request on the connection has been answered, so a
 * client always reads responses in the order it sent requests (Kafka's contract), whichever broker
 * answers first. Runs on the connection's event loop.
 */
final class ResponseOrderer {
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    /** Bytes of the answers held here for an earlier one: they count as unread answers too. */
    private long heldBytes;
    /** Slots handed to the writer so far: a change says the head of the line moved. */
    private long released;

    /** A place in line for one request. */
    static final class Slot {
        final int clientCorrelationId;
        Reply reply;
        int replyBytes;

        Slot(int clientCorrelationId) {
            this.clientCorrelationId = clientCorrelationId;
        }
    }

    Slot reserve(int clientCorrelationId) {
        Slot slot = new Slot(clientCorrelationId);
        slots.addLast(slot);
        return slot;
    }

    /** Records a slot's reply, then hands every reply now at the head of the line to {@code writer}. */
    void complete(Slot slot, Reply reply, Consumer<Slot> writer) {
        slot.reply = reply;
        slot.replyBytes = AnswerWriter.answerBytes(reply);
        heldBytes += slot.replyBytes;
        while (!slots.isEmpty() && slots.peekFirst().reply != null) {
            Slot head = slots.pollFirst();
            heldBytes -= head.replyBytes;
            released++;
            writer.accept(head);
        }
    }

    /** Whether the next slot in line has its reply (during {@link #complete}: another answer follows this one). */
    boolean headReady() {
        return !slots.isEmpty() && slots.peekFirst().reply != null;
    }

    int waiting() {
        return slots.size();
    }

    /** How many slots were handed to the writer so far. */
    long released() {
        return released;
    }

    /** Bytes of the answers that wait for an earlier answer. */
    long heldBytes() {
        return heldBytes;
    }

    /** Drops every slot, releasing replies that were waiting; later completions are discarded by the caller. */
    void discardAll() {
        for (Slot slot : slots) {
            if (slot.reply != null) {
                slot.reply.discard();
            }
        }
        slots.clear();
        heldBytes = 0;
    }
}
