package org.kafscale.proxy.routing.apis;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How long a broker may legitimately hold one request beyond the request timeout (a Fetch its max
 * wait, a JoinGroup its rebalance), so neither the connection's deadline nor the broker channel
 * gives up on it early.
 */
@FunctionalInterface
public interface Hold<Q extends ApiMessage> {
    /** A request the broker answers at once. */
    Hold<ApiMessage> NONE = (holds, body) -> 0;

    /** @param holds what this connection remembers of earlier requests (a group's rebalance timeout) */
    long millis(BrokerHolds holds, Q body);

    @SuppressWarnings("unchecked")
    static <Q extends ApiMessage> Hold<Q> none() {
        return (Hold<Q>) NONE;
    }
}
