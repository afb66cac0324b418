package org.kafscale.proxy.core.policy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The stages of each API, in chain order, for one set of policy instances: every connection's
 * when all policies are shared, one connection's otherwise. An API no policy reads has none, and
 * its requests pass the chain untouched.
 */
final class Stages {
    private static final Stage[] NONE = new Stage[0];

    private final Map<ApiKeys, Stage[]> byApi = new EnumMap<>(ApiKeys.class);
    private final LongAdder answersDecoded;

    /** @param policies what each policy reads, in chain order */
    Stages(List<Hooks> policies, LongAdder answersDecoded) {
        this.answersDecoded = answersDecoded;
        Set<ApiKeys> apis = EnumSet.noneOf(ApiKeys.class);
        policies.forEach(hooks -> apis.addAll(hooks.apis()));
        for (ApiKeys api : apis) {
            List<Stage> stages = new ArrayList<>();
            for (Hooks hooks : policies) {
                RequestPolicy request = hooks.request(api);
                AnswerPolicy answer = hooks.answer(api);
                if (request != null || answer != null) {
                    stages.add(new Stage(hooks.policy(), request, answer));
                }
            }
            byApi.put(api, stages.toArray(NONE));
        }
    }

    /** The stages that read {@code api}'s requests or answers, in chain order (shared: not to be changed). */
    Stage[] of(ApiKeys api) {
        return byApi.getOrDefault(api, NONE);
    }

    /** An answer was decoded for the policies that read it. */
    void answerDecoded() {
        answersDecoded.increment();
    }
}
