package org.kafscale.proxy.core.policy;

import org.apache.kafka.common.protocol.ApiMessage;

/** What an {@link AnswerPolicy} decided for one answer. */
public sealed interface AnswerOutcome {
    AnswerOutcome KEEP = new Keep();

    /** The answer goes on as it is. */
    record Keep() implements AnswerOutcome {
    }

    /** {@code answer} goes on instead (it may be the one read, changed in place); encoded once at the end. */
    record Replace(ApiMessage answer) implements AnswerOutcome {
    }

    /** Nothing is written; the connection closes, logging {@code reason}. */
    record Close(String reason) implements AnswerOutcome {
    }

    static AnswerOutcome keep() {
        return KEEP;
    }

    static AnswerOutcome replace(ApiMessage answer) {
        return new Replace(answer);
    }

    static AnswerOutcome close(String reason) {
        return new Close(reason);
    }
}
