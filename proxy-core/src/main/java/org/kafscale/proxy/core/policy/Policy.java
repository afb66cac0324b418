package org.kafscale.proxy.core.policy;

/**
 * One step of the {@link PolicyChain}: a class that implements {@link RequestPolicy} (every API,
 * or those it names), {@link AnswerPolicy}, or typed hooks of single APIs ({@link
 * ProduceRequestPolicy}, {@link FetchAnswerPolicy}, ...), several of them at once. The chain calls
 * request hooks in its order and answer hooks in the reverse order, so the first policy sees the
 * request first and the answer last.
 */
public interface Policy {
}
