package org.kafscale.proxy.core.hooks;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Told what routing decided, for metrics. Called on event loops: implementations must be cheap
 * and must not block.
 */
public interface RoutingObserver {
    RoutingObserver NONE = new RoutingObserver() {
    };

    /** Why the proxy sent (part of) a request again. */
    enum RetryCause { LEADER, CONNECTION, NOT_COORDINATOR }

    /** What became of a Fetch answer read ahead for a client's next Fetch. */
    enum ReadAheadOutcome {
        /** A Fetch asked exactly that and took it. */
        ADOPTED,
        /** A Fetch asked that broker something else (a seek, a pause, other limits): dropped. */
        MISSED,
        /** The answer carried an error (a leader move, an offset out of range): dropped, asked afresh. */
        ERROR,
        /** Holding it would exceed the process-wide bound: dropped. */
        OVER_BUDGET,
        /** No Fetch asked for it in time: dropped. */
        EXPIRED,
        /** The client connection closed: dropped. */
        CLOSED
    }

    /** A request's first round went to {@code brokers} brokers (1: no split). */
    default void fannedOut(ApiKeys api, int brokers) {
    }

    /** Part of a request is being sent again. */
    default void retried(ApiKeys api, RetryCause cause) {
    }

    /**
     * The bytes of Fetch answers read ahead and held for clients' next Fetches changed by
     * {@code deltaBytes} (positive as one is held, negative as it is taken or dropped).
     */
    default void readAheadHeld(long deltaBytes) {
    }

    /** A Fetch answer read ahead was taken or dropped. */
    default void readAhead(ReadAheadOutcome outcome) {
    }
}
