package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Reads a request before it is answered or routed, and decides what becomes of it: it goes on
 * (as sent, or with a replaced body), or the policy answers it, or the connection closes
 * ({@link RequestOutcome}). Called on the connection's event loop; must not block it: a decision
 * that waits on something completes its future later ({@link PolicyContext#newOutcome}).
 *
 * <p>The body is kafka-clients' generated class for the request ({@code ProduceRequestData} for a
 * Produce), parsed once for every policy and the route after them. A policy that changes it in
 * place must say so with {@link RequestOutcome#forward(ApiMessage)}: an unchanged outcome sends
 * the client's own bytes on.
 *
 * <p>The untyped hook, for a policy that reads (nearly) every API, as authorization does; one of a
 * few APIs registers typed hooks instead ({@link Hooks#onRequest}).
 */
public interface RequestPolicy extends Policy {

    /**
     * Whether this policy reads requests of {@code api}. Asked once per API, when the policy is
     * registered: a request no policy reads is not even parsed for the chain.
     */
    default boolean readsRequests(ApiKeys api) {
        return true;
    }

    Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context);
}
