package org.kafscale.proxy.core.server;

import java.time.Duration;

/** What the connections of one listener may hold, per connection and all together. */
final class ConnectionBudgets {
    private final HeldBytes partialFrames;
    private final HeldBytes unreadAnswers;
    private final Duration frameReadTimeout;
    private final Duration idleTimeout;
    private final Duration unauthenticatedTimeout;

    ConnectionBudgets(ListenerLimits limits) {
        this.partialFrames = new HeldBytes(limits.partialFrameBytes());
        this.unreadAnswers = new HeldBytes(limits.unreadAnswerBytes());
        this.frameReadTimeout = limits.frameReadTimeout();
        this.idleTimeout = limits.idleTimeout();
        this.unauthenticatedTimeout = limits.unauthenticatedTimeout();
    }

    /** Bytes of request frames not yet complete. */
    HeldBytes partialFrames() {
        return partialFrames;
    }

    /** Bytes of answers written and not yet taken by the client. */
    HeldBytes unreadAnswers() {
        return unreadAnswers;
    }

    Duration frameReadTimeout() {
        return frameReadTimeout;
    }

    Duration idleTimeout() {
        return idleTimeout;
    }

    Duration unauthenticatedTimeout() {
        return unauthenticatedTimeout;
    }
}
