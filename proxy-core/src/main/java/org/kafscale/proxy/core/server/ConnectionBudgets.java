package org.kafscale.proxy.core.server;

import java.time.Duration;

/** What the connections of one listener may hold, per connection and all together. */
final class ConnectionBudgets {
    private final HeldBytes partialFrames;
    private final HeldBytes unreadAnswers;
    /**
     * The timeouts a connection takes when it is accepted: one immutable snapshot, swapped whole
     * by a live reconfiguration, so an event loop reads it without a lock and never sees half of one.
     */
    private volatile Timeouts timeouts;

    record Timeouts(Duration frameRead, Duration idle, Duration unauthenticated) {
        Timeouts(ListenerLimits limits) {
            this(limits.frameReadTimeout(), limits.idleTimeout(), limits.unauthenticatedTimeout());
        }
    }

    ConnectionBudgets(ListenerLimits limits) {
        this.partialFrames = new HeldBytes(limits.partialFrameBytes());
        this.unreadAnswers = new HeldBytes(limits.unreadAnswerBytes());
        this.timeouts = new Timeouts(limits);
    }

    /** Connections accepted from now on take the timeouts of {@code limits}; open ones keep theirs. */
    void applyTimeouts(ListenerLimits limits) {
        timeouts = new Timeouts(limits);
    }

    /** Bytes of request frames not yet complete. */
    HeldBytes partialFrames() {
        return partialFrames;
    }

    /** Bytes of answers written and not yet taken by the client. */
    HeldBytes unreadAnswers() {
        return unreadAnswers;
    }

    /** The timeouts in force, read once per connection so that it never takes half of a reload's. */
    Timeouts timeouts() {
        return timeouts;
    }
}
