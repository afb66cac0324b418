package org.kafscale.proxy.core.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.kafscale.proxy.core.logging.LogFields;

/**
 * Writes a connection's answers in request order, each under the client's correlation id, and
 * says how many bytes of them the client has not taken: those written and not yet read, and those
 * waiting in the {@link ResponseOrderer} for an earlier answer. Carries out the {@link Reply}
 * variants: an answer, an answer then a close, nothing, or a close. Confined to the connection's
 * event loop.
 */
final class AnswerWriter {
    private static final int FRAME_SIZE_BYTES = 4;

    private final ChannelHandlerContext ctx;
    private final ConnectionLogs logs;
    private final Supplier<String> client;
    private final LogFields fields;
    private final BooleanSupplier answering;
    private final Runnable answersTaken;
    private final Runnable closing;
    private final ResponseOrderer orderer = new ResponseOrderer();

    /**
     * @param client names the client in log lines
     * @param fields the connection's fields, carried by those lines
     * @param answering whether answers are still written (the connection is not closed)
     * @param answersTaken told when the client has taken the last answer of a batch
     * @param closing told when a reply closed the connection
     */
    AnswerWriter(ChannelHandlerContext ctx, ConnectionLogs logs, Supplier<String> client, LogFields fields,
                 BooleanSupplier answering, Runnable answersTaken, Runnable closing) {
        this.ctx = ctx;
        this.logs = logs;
        this.client = client;
        this.fields = fields;
        this.answering = answering;
        this.answersTaken = answersTaken;
        this.closing = closing;
    }

    /** A place in line for the request with this correlation id. */
    ResponseOrderer.Slot reserve(int clientCorrelationId) {
        return orderer.reserve(clientCorrelationId);
    }

    /**
     * Gives the slot its reply and writes every answer that is now next in line, then flushes.
     * A failure writing (an answer too short for a correlation id) is thrown; the caller closes.
     */
    void complete(ResponseOrderer.Slot slot, Reply reply) {
        if (!answering.getAsBoolean()) {
            reply.discard();
            return;
        }
        orderer.complete(slot, reply, this::write);
        ctx.flush();
    }

    /** Requests read whose answers are not written yet. */
    int waiting() {
        return orderer.waiting();
    }

    /** Bytes of answers not taken by the client: written and unread, or waiting for an earlier answer. */
    long unreadBytes() {
        ChannelOutboundBuffer outbound = ctx.channel().unsafe().outboundBuffer();
        long pending = outbound == null ? 0 : outbound.totalPendingWriteBytes();
        return pending + orderer.heldBytes();
    }

    /** Bytes of answers waiting for an earlier answer (which a broker channel must still deliver). */
    long heldBytes() {
        return orderer.heldBytes();
    }

    /** How many replies left the line so far (written, or nothing to write): a change says the head moved. */
    long released() {
        return orderer.released();
    }

    /** The connection closed: every answer waiting is released. */
    void discardAll() {
        orderer.discardAll();
    }

    /** Writes one answer at its turn. */
    private void write(ResponseOrderer.Slot slot) {
        Reply reply = slot.reply;
        if (!answering.getAsBoolean()) {
            reply.discard();
            return;
        }
        if (reply instanceof Reply.Send send) {
            // The last answer of a batch says when the client has taken the batch: without it the
            // unread count would change only at the write-buffer water marks.
            ChannelPromise written = orderer.headReady() ? ctx.voidPromise()
                    : ctx.newPromise().addListener(f -> answersTaken.run());
            ctx.write(withClientCorrelationId(send.frame(), slot), written);
        } else if (reply instanceof Reply.SendAndClose send) {
            logs.answeredAndClosed.info(fields, "Closing connection from client {} after answering: {}", client.get(),
                    send.reason());
            ctx.writeAndFlush(withClientCorrelationId(send.frame(), slot)).addListener(ChannelFutureListener.CLOSE);
            closing.run();
        } else if (reply instanceof Reply.Close close) {
            logs.closes.warn(fields, "Closing connection from client {}: {}", client.get(), close.reason());
            ctx.flush();
            ctx.close();
            closing.run();
        }
    }

    /** Puts the client's correlation id on the answer; an answer too short to hold one is released and refused. */
    private static ByteBuf withClientCorrelationId(ByteBuf frame, ResponseOrderer.Slot slot) {
        if (frame.readableBytes() < Integer.BYTES) {
            int size = frame.readableBytes();
            frame.release();
            throw new IllegalArgumentException("an answer of " + size + " bytes has no correlation id");
        }
        frame.setInt(frame.readerIndex(), slot.clientCorrelationId);
        return frame;
    }

    /** The bytes the client reads for this reply, size prefix included (0 when nothing is written). */
    static int answerBytes(Reply reply) {
        if (reply instanceof Reply.Send send) {
            return FRAME_SIZE_BYTES + send.frame().readableBytes();
        }
        if (reply instanceof Reply.SendAndClose send) {
            return FRAME_SIZE_BYTES + send.frame().readableBytes();
        }
        return 0;
    }

    static boolean closes(Reply reply) {
        return reply instanceof Reply.SendAndClose || reply instanceof Reply.Close;
    }
}
