package org.kafscale.proxy.core.policy;

import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.server.Reply;

/** What a {@link RequestPolicy} decided for one request. */
public sealed interface RequestOutcome {
    /** The request goes on as it is; the most common outcome, made once. */
    RequestOutcome FORWARD = new Forward(null, null);

    /**
     * The request goes on to the next policy and then the route.
     *
     * @param replaced the body that goes on instead of the one the policy read (re-encoded at the
     *        request's version before it is routed), or null for the body as it was
     * @param answer reads this one request's answer on its way back, or null
     */
    record Forward(ApiMessage replaced, AnswerPolicy answer) implements RequestOutcome {
    }

    /**
     * The policy answers the request itself ({@link Reply.Send}; see {@link PolicyContext#answer},
     * {@link PolicyContext#error}) or closes the connection ({@link Reply.Close}): nothing after it
     * sees the request, and the policies before it see this answer.
     */
    record Respond(Reply reply) implements RequestOutcome {
    }

    static RequestOutcome forward() {
        return FORWARD;
    }

    /** {@code replaced} goes on instead of the body read (it may be that body, changed in place). */
    static RequestOutcome forward(ApiMessage replaced) {
        return new Forward(replaced, null);
    }

    /** {@code replaced} (null: the body as it was) goes on, and {@code answer} reads its answer. */
    static RequestOutcome forward(ApiMessage replaced, AnswerPolicy answer) {
        return new Forward(replaced, answer);
    }

    static RequestOutcome respond(Reply reply) {
        return new Respond(reply);
    }
}
