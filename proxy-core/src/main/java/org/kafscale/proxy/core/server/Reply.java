package org.kafscale.proxy.core.server;

import io.netty.buffer.ByteBuf;

/** What the proxy does for one client request once it is handled. */
public sealed interface Reply {

    /** Send this answer frame (header and body, no size prefix); ownership passes to the writer. */
    record Send(ByteBuf frame) implements Reply {
    }

    /**
     * Send this answer, then close the connection (the not-ready answers of spec §3.10 and
     * answers to requests the proxy cannot serve).
     */
    record SendAndClose(ByteBuf frame, String reason) implements Reply {
    }

    /** Send nothing: Kafka defines no answer (Produce with acks=0). */
    record None() implements Reply {
    }

    /** Close the connection without an answer, logging why (no answer exists for this request). */
    record Close(String reason) implements Reply {
    }

    Reply NONE = new None();

    static Reply send(ByteBuf frame) {
        return new Send(frame);
    }

    /** Releases any buffer this reply holds; for replies that will not be written. */
    default void discard() {
        if (this instanceof Send s) {
            s.frame().release();
        } else if (this instanceof SendAndClose s) {
            s.frame().release();
        }
    }
}
