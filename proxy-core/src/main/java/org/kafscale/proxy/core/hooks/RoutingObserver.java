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

    /** A request's first round went to {@code brokers} brokers (1: no split). */
    default void fannedOut(ApiKeys api, int brokers) {
    }

    /** Part of a request is being sent again. */
    default void retried(ApiKeys api, RetryCause cause) {
    }
}
