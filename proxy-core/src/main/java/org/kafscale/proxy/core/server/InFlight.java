package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.Future;
import java.util.function.Consumer;
import org.kafscale.proxy.core.codec.RequestFrame;

/** One request from its read until its handler is done with it. Confined to the event loop. */
final class InFlight extends RequestDeadlines.Awaiting implements ConnectionContext.Hold {
    private static final int FRAME_SIZE_BYTES = 4;

    final ResponseOrderer.Slot slot;
    final RequestFrame request;
    final long startedNanos = System.nanoTime();
    final int requestBytes;
    /** How long after its dispatch the request is answered REQUEST_TIMED_OUT if nothing else answered it. */
    long deadlineMillis;
    /** The longest hold named for the request (see {@link ConnectionContext#expectHeldFor}). */
    long heldMillis;
    /** Told of a longer hold named after the handle call returned, when the deadline is already set. */
    private final Consumer<InFlight> heldLater;
    /** The slot has its reply (the handler's or the deadline's); any later reply is discarded. */
    boolean answered;

    InFlight(ResponseOrderer.Slot slot, RequestFrame request, Consumer<InFlight> heldLater) {
        this.slot = slot;
        this.heldLater = heldLater;
        this.request = request;
        this.requestBytes = FRAME_SIZE_BYTES + request.frame().readableBytes();
    }

    @Override
    public void heldFor(long extraMillis) {
        if (extraMillis > heldMillis) {
            heldMillis = extraMillis;
            heldLater.accept(this);
        }
    }

    /** The reply in the handler's completed future; a failure or a missing reply becomes a close. */
    Reply replyOf(Future<?> handled, ConnectionContext connection) {
        if (!handled.isSuccess()) {
            connection.atDebug(ConnectionLogs.LOGGER).setCause(handled.cause()).log("Reply failure detail");
            return new Reply.Close("handling " + request.describe() + " failed: " + handled.cause());
        }
        // A null would leave the slot looking pending and stall every later answer.
        return handled.getNow() instanceof Reply reply ? reply
                : new Reply.Close("handling " + request.describe() + " produced no reply");
    }
}
