package org.kafscale.proxy.core.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.server.RequestHandlers;

/**
 * The ordered policies every request passes before it is answered or routed, and every answer
 * passes (in the reverse order) before it is written. Authorization is the first when ACLs are on.
 *
 * <p>Which policies read which API is settled here, once: a request of an API no policy reads
 * goes straight to the next handler, neither parsed nor wrapped, so an empty chain (or one that
 * reads other APIs) costs a table look-up per request. A request a policy reads but does not
 * replace goes on as the client's own bytes; its records stay zero-copy. Policies are shared by
 * every connection: what one keeps per request it hands back as a per-request {@link
 * AnswerPolicy} ({@link RequestOutcome#forward(org.apache.kafka.common.protocol.ApiMessage,
 * AnswerPolicy)}).
 */
public final class PolicyChain {
    private static final Stage[] NONE = new Stage[0];

    private final List<Policy> policies;
    private final Map<ApiKeys, Stage[]> stagesByApi = new EnumMap<>(ApiKeys.class);

    /** @param policies in order: the first reads each request first and each answer last */
    public PolicyChain(List<? extends Policy> policies) {
        this.policies = List.copyOf(policies);
        for (ApiKeys api : ApiKeys.values()) {
            List<Stage> stages = new ArrayList<>();
            for (Policy policy : this.policies) {
                RequestPolicy request = hook(policy, api, TypedHooks.request(policy, api), RequestPolicy.class,
                        RequestPolicy::readsRequests);
                AnswerPolicy answer = hook(policy, api, TypedHooks.answer(policy, api), AnswerPolicy.class,
                        AnswerPolicy::readsAnswers);
                if (request != null || answer != null) {
                    stages.add(new Stage(policy, request, answer));
                }
            }
            stagesByApi.put(api, stages.isEmpty() ? NONE : stages.toArray(NONE));
        }
        for (Policy policy : this.policies) {
            if (stagesByApi.values().stream().flatMap(Arrays::stream).noneMatch(s -> s.policy() == policy)) {
                throw new IllegalArgumentException(policy.getClass().getName() + " reads no request and no answer");
            }
        }
    }

    /**
     * The policy's hook of one kind ({@link RequestPolicy} or {@link AnswerPolicy}) for {@code api}:
     * its typed one, or the general one if it reads the API. A policy with both for one API is refused:
     * which of them reads the API would be a guess.
     */
    private static <H extends Policy> H hook(Policy policy, ApiKeys api, H typed, Class<H> kind,
                                             BiPredicate<H, ApiKeys> reads) {
        if (typed != null && kind.isInstance(policy)) {
            throw new IllegalArgumentException(policy.getClass().getName() + " has both a typed hook and "
                    + kind.getSimpleName() + "'s for " + api);
        }
        if (typed != null) {
            return typed;
        }
        return kind.isInstance(policy) && reads.test(kind.cast(policy), api) ? kind.cast(policy) : null;
    }

    public static PolicyChain of(Policy... policies) {
        return new PolicyChain(List.of(policies));
    }

    public boolean isEmpty() {
        return policies.isEmpty();
    }

    /** The policies, in order. */
    public List<Policy> policies() {
        return policies;
    }

    /** {@code next} behind this chain; {@code next} itself when the chain is empty. */
    public RequestHandler around(RequestHandler next) {
        return isEmpty() ? next : new PolicyHandler(this, next);
    }

    /** Each connection's handler from {@code next} behind this chain; {@code next} itself when the chain is empty. */
    public RequestHandlers around(RequestHandlers next) {
        return isEmpty() ? next : connection -> new PolicyHandler(this, next.forConnection(connection));
    }

    /** The stages that read {@code api}'s requests or answers, in chain order (shared: not to be changed). */
    Stage[] stages(ApiKeys api) {
        return stagesByApi.get(api);
    }
}
