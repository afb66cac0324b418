package org.kafscale.proxy.core.policy;

/**
 * One policy of the chain as one API sees it: its request hook when it reads that API's requests,
 * its answer hook when it reads that API's answers (either may be null, not both).
 */
record Stage(Policy policy, RequestPolicy request, AnswerPolicy answer) {

    /** The policy's name for close reasons and log lines. */
    String name() {
        return policy.getClass().getSimpleName();
    }
}
