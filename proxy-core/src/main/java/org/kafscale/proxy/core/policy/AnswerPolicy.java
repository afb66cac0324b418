package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Reads an answer before it is written to the client, and keeps it, replaces it or closes the
 * connection ({@link AnswerOutcome}). Called on the connection's event loop, for the answers of
 * requests that went on past this policy (an answer made by a later policy included); must not
 * block it.
 *
 * <p>The answer is kafka-clients' generated class for it, parsed once for every answer policy of
 * the request. A policy that changes it in place says so with {@link AnswerOutcome#replace}: a kept
 * answer is written as the broker's own bytes.
 *
 * <p>The untyped hook, for a policy that reads (nearly) every API; one of a few APIs registers
 * typed hooks instead ({@link Hooks#onAnswer}). Besides a chain's answer policies, a request policy can hand one back for a single request
 * ({@link RequestOutcome#forward(ApiMessage, AnswerPolicy)}): what it learnt from the request is
 * then at hand for its answer.
 */
public interface AnswerPolicy extends Policy {

    /** Whether this policy reads answers of {@code api}; asked once per API, when the policy is registered. */
    default boolean readsAnswers(ApiKeys api) {
        return true;
    }

    Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context);

    /**
     * The request got no answer to read (acks=0, a close, a connection-level refusal): called
     * instead of {@link #onAnswer}, for policies that account for every request they passed.
     */
    default void unanswered(PolicyContext context) {
    }
}
