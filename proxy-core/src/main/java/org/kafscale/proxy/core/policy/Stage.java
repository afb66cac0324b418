package org.kafscale.proxy.core.policy;

/**
 * One policy of the chain as one API sees it: its request hook when it reads that API's requests,
 * its answer hook when it reads that API's answers (either may be null, not both). A request's
 * own answer reader ({@link RequestOutcome.Forward#answer}) is a stage of the policy that gave it.
 */
record Stage(String name, RequestPolicy request, AnswerPolicy answer) {
}
