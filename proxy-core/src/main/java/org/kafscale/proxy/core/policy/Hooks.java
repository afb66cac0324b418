package org.kafscale.proxy.core.policy;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What one policy reads, API by API: the typed hooks it registers in {@link Policy#register},
 * and, for a {@link RequestPolicy} or {@link AnswerPolicy}, its untyped hook for each API it says
 * it reads. The API of a typed hook is its body class's ({@link ApiBodies}). Settled once per
 * policy instance, when the chain (or, for a policy made per connection, the connection) is built.
 */
public final class Hooks {
    private final String policy;
    private final Map<ApiKeys, RequestPolicy> requests = new EnumMap<>(ApiKeys.class);
    private final Map<ApiKeys, AnswerPolicy> answers = new EnumMap<>(ApiKeys.class);

    private Hooks(String policy) {
        this.policy = policy;
    }

    /**
     * {@code hook} reads every request of the API whose request body is {@code body} (such as
     * {@code ProduceRequestData} for Produce), before the route.
     *
     * @throws IllegalArgumentException when {@code body} is no API's request body, or the policy
     *         already reads that API's requests
     */
    public <T extends ApiMessage> Hooks onRequest(Class<T> body, RequestHook<? super T> hook) {
        ApiKeys api = ApiBodies.ofRequest(body);
        add(requests, api, (message, context) -> hook.onRequest(body.cast(message), context), "requests");
        return this;
    }

    /**
     * {@code hook} reads every answer of the API whose response body is {@code answer} (such as
     * {@code FetchResponseData} for Fetch), before it is written to the client.
     *
     * @throws IllegalArgumentException when {@code answer} is no API's response body, or the policy
     *         already reads that API's answers
     */
    public <T extends ApiMessage> Hooks onAnswer(Class<T> answer, AnswerHook<? super T> hook) {
        ApiKeys api = ApiBodies.ofAnswer(answer);
        add(answers, api, (message, context) -> hook.onAnswer(answer.cast(message), context), "answers");
        return this;
    }

    /** What {@code policy} reads: its registered hooks, and its untyped ones for the APIs it names. */
    static Hooks of(Policy policy) {
        Hooks hooks = new Hooks(nameOf(policy));
        policy.register(hooks);
        for (ApiKeys api : ApiKeys.values()) {
            if (policy instanceof RequestPolicy untyped && untyped.readsRequests(api)) {
                hooks.add(hooks.requests, api, untyped, "requests");
            }
            if (policy instanceof AnswerPolicy untyped && untyped.readsAnswers(api)) {
                hooks.add(hooks.answers, api, untyped, "answers");
            }
        }
        if (hooks.requests.isEmpty() && hooks.answers.isEmpty()) {
            throw new IllegalArgumentException(policy.getClass().getName() + " reads no request and no answer");
        }
        return hooks;
    }

    /** The policy's name for close reasons and log lines. */
    String policy() {
        return policy;
    }

    /** The APIs the policy reads requests or answers of. */
    Set<ApiKeys> apis() {
        Set<ApiKeys> apis = EnumSet.noneOf(ApiKeys.class);
        apis.addAll(requests.keySet());
        apis.addAll(answers.keySet());
        return apis;
    }

    /** The policy as {@code api}'s requests see it: null when it reads none. */
    RequestPolicy request(ApiKeys api) {
        return requests.get(api);
    }

    /** The policy as {@code api}'s answers see it: null when it reads none. */
    AnswerPolicy answer(ApiKeys api) {
        return answers.get(api);
    }

    /** A policy (a lambda, an anonymous class) may have no simple name: its class name then. */
    static String nameOf(Object policy) {
        String name = policy.getClass().getSimpleName();
        return name.isEmpty() ? policy.getClass().getName() : name;
    }

    /** One hook per API and way: which of two would read it would be a guess. */
    private <H> void add(Map<ApiKeys, H> hooks, ApiKeys api, H hook, String what) {
        if (hooks.putIfAbsent(api, hook) != null) {
            throw new IllegalArgumentException(policy + " has two hooks for the " + what + " of " + api);
        }
    }
}
