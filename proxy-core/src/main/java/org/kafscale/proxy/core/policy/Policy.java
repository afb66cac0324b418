package org.kafscale.proxy.core.policy;

/**
 * One step of the {@link PolicyChain}. A policy registers typed hooks for the APIs it reads, as
 * many as it needs, both ways ({@link Hooks#onRequest}, {@link Hooks#onAnswer}); a policy of every
 * API (or of those it names per key) implements {@link RequestPolicy} or {@link AnswerPolicy}
 * instead. The chain calls request hooks in its order and answer hooks in the reverse order, so
 * the first policy sees the request first and the answer last.
 *
 * <p>A policy is either shared by every connection ({@link PolicyFactory#shared}) or made for each
 * one ({@link PolicyFactory}); one made per connection that is {@link AutoCloseable} is closed when
 * its connection closes.
 */
public interface Policy {

    /**
     * Registers this policy's typed hooks. Called once per instance, when the chain (or, for a
     * policy made per connection, the connection) is built, never per request.
     */
    default void register(Hooks hooks) {
    }
}
