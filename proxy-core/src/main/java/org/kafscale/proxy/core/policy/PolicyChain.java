package org.kafscale.proxy.core.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordered policies every request passes before it is answered or routed, and every answer
 * passes (in the reverse order) before it is written. Authorization is the first when ACLs are on.
 *
 * <p>Which policies read which API is settled when the policies are registered ({@link Hooks}),
 * not per request: a request of an API no policy reads goes straight to the next handler, neither
 * parsed nor wrapped, so an empty chain (or one that reads other APIs) costs a table look-up per
 * request. A request a policy reads but does not replace goes on as the client's own bytes; its
 * records stay zero-copy. An answer is decoded only when a policy reads it, once for all of them.
 *
 * <p>A shared policy ({@link PolicyFactory#shared}) is registered once, here; one a factory makes
 * per connection is made and registered as its connection opens and closed as it closes. What a
 * shared policy keeps per request it hands back as a per-request {@link AnswerPolicy} ({@link
 * RequestOutcome#forward(org.apache.kafka.common.protocol.ApiMessage, AnswerPolicy)}).
 */
public final class PolicyChain {
    private static final Logger LOGGER = LoggerFactory.getLogger(PolicyChain.class);

    private final List<PolicyFactory> factories;
    /** The hooks of each shared policy, by its place in the chain; null at a per-connection one's place. */
    private final Hooks[] shared;
    /** Every connection's stages when every policy is shared; null when each connection has its own. */
    private final Stages stages;
    private final LongAdder answersDecoded = new LongAdder();

    /** @param factories in order: the first policy reads each request first and each answer last */
    public PolicyChain(List<? extends PolicyFactory> factories) {
        this.factories = List.copyOf(factories);
        this.shared = new Hooks[this.factories.size()];
        boolean allShared = true;
        for (int i = 0; i < shared.length; i++) {
            if (this.factories.get(i) instanceof SharedPolicy policy) {
                shared[i] = Hooks.of(policy.policy());
            } else {
                allShared = false;
            }
        }
        this.stages = allShared ? new Stages(Arrays.asList(shared), answersDecoded) : null;
    }

    /** A chain of policies every connection shares, in order. */
    public static PolicyChain of(Policy... policies) {
        return new PolicyChain(Arrays.stream(policies).map(PolicyFactory::shared).toList());
    }

    public boolean isEmpty() {
        return factories.isEmpty();
    }

    /**
     * How many answers the chain has decoded for its policies, over every connection: an answer
     * no policy reads is never decoded, and one that several read is decoded once.
     */
    public long answersDecoded() {
        return answersDecoded.sum();
    }

    /**
     * {@code next} behind this chain of shared policies; {@code next} itself when the chain is empty.
     *
     * @throws IllegalStateException when a policy is made per connection: use {@link #around(RequestHandlers)}
     */
    public RequestHandler around(RequestHandler next) {
        if (stages == null) {
            throw new IllegalStateException("a policy made per connection needs the handlers of each connection");
        }
        return isEmpty() ? next : new PolicyHandler(stages, next);
    }

    /**
     * Each connection's handler from {@code next} behind this chain, with the connection's own
     * instances of the policies made per connection; {@code next} itself when the chain is empty.
     */
    public RequestHandlers around(RequestHandlers next) {
        if (isEmpty()) {
            return next;
        }
        return connection -> {
            RequestHandler handler = next.forConnection(connection);
            if (stages != null) {
                return new PolicyHandler(stages, handler);
            }
            try {
                return new PolicyHandler(stagesOf(connection), handler);
            } catch (RuntimeException e) {
                // The connection cannot be served as configured: each request it sends closes it.
                String reason = "making the policies of the connection from " + connection.describeClient()
                        + " failed: " + e;
                connection.atWarn(LOGGER).log("Policies not made: {}", reason);
                return (context, request) -> Replies.now(context.loop(), new Reply.Close(reason));
            }
        };
    }

    /** The stages of {@code connection}'s policies: the shared ones, and its own made now. */
    private Stages stagesOf(ConnectionContext connection) {
        PolicyConnection view = new PolicyConnection(connection);
        List<Hooks> hooks = new ArrayList<>(shared.length);
        for (int i = 0; i < shared.length; i++) {
            if (shared[i] != null) {
                hooks.add(shared[i]);
                continue;
            }
            Policy policy = factories.get(i).create(view);
            if (policy == null) {
                throw new IllegalStateException(Hooks.nameOf(factories.get(i)) + " made no policy");
            }
            closeWith(connection, policy);
            hooks.add(Hooks.of(policy));
        }
        return new Stages(hooks, answersDecoded);
    }

    /** A policy made for {@code connection} that holds resources is closed with it, on its loop. */
    private static void closeWith(ConnectionContext connection, Policy policy) {
        if (!(policy instanceof AutoCloseable closeable)) {
            return;
        }
        connection.onClose(() -> {
            try {
                closeable.close();
            } catch (Exception e) {
                connection.atWarn(LOGGER).log("Closing policy {} failed: {}", Hooks.nameOf(policy), e.toString());
            }
        });
    }
}
