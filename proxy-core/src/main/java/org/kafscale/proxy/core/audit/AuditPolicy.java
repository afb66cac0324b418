package org.kafscale.proxy.core.audit;

import io.netty.util.concurrent.Future;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.policy.RequestPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail's policy: each mutating call ({@link AdminCalls}) is recorded with its outcome,
 * read from the answer the client gets. It stands after the tenant policy (so it reads the real
 * cluster's names) and before authorization: request hooks run in the chain's order and answer
 * hooks in reverse, so a call the ACLs refuse is recorded too, with the refusal as its outcome.
 *
 * <p>With failClosed, a mutating call is refused while a sink is down or full
 * ({@link AuditTrail#refusesMutations}): answered POLICY_VIOLATION (Kafka's error answer for the
 * API), never forwarded, and recorded as {@code refused} wherever a sink still writes.
 */
public final class AuditPolicy implements RequestPolicy {
    private static final Logger LOGGER = LoggerFactory.getLogger(AuditPolicy.class);
    /** The error a mutating call is refused with while the trail cannot record it (failClosed). */
    static final Errors REFUSAL = Errors.POLICY_VIOLATION;

    private final AuditTrail trail;
    private final AuditSubjects subjects;
    private final Clock clock;

    public AuditPolicy(AuditTrail trail, AuditSubjects subjects, Clock clock) {
        this.trail = trail;
        this.subjects = subjects;
        this.clock = clock;
    }

    @Override
    public boolean readsRequests(ApiKeys api) {
        return AdminCalls.APIS.contains(api);
    }

    @Override
    public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
        Optional<List<AdminCalls.Resource>> resources = AdminCalls.resources(body);
        if (resources.isEmpty()) {
            return context.forward();
        }
        AuditEvent.Subject subject = subjects.of(context.connection());
        if (trail.refusesMutations()) {
            trail.record(AuditEvent.admin(clock.instant(), subject, context.api().name, context.apiVersion(),
                    fields(resources.get(), null), "refused"));
            LOGGER.warn("Refused {} from {}: an audit sink is down and failClosed is set", context.describeRequest(),
                    context.describeClient());
            return context.now(context.error(REFUSAL));
        }
        return context.now(RequestOutcome.forward(null, new Outcome(resources.get(), subject)));
    }

    /** The resources as written, each with its error when the answer is known. */
    private static List<Map<String, Object>> fields(List<AdminCalls.Resource> resources, Map<String, Short> errors) {
        List<Map<String, Object>> out = new ArrayList<>(resources.size());
        for (AdminCalls.Resource resource : resources) {
            Map<String, Object> each = new LinkedHashMap<>(resource.fields());
            if (errors != null) {
                each.put("error", Errors.forCode(AdminCalls.errorOf(resource, errors)).name());
            }
            out.add(each);
        }
        return out;
    }

    /** One call's answer: the event, with each resource's error. */
    private final class Outcome implements AnswerPolicy {
        private final List<AdminCalls.Resource> resources;
        private final AuditEvent.Subject subject;

        Outcome(List<AdminCalls.Resource> resources, AuditEvent.Subject subject) {
            this.resources = resources;
            this.subject = subject;
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            Map<String, Short> errors = AdminCalls.errors(answer);
            long failed = resources.stream().filter(r -> AdminCalls.errorOf(r, errors) != 0).count();
            String outcome = failed == 0 ? "succeeded" : failed == resources.size() ? "failed" : "partial";
            trail.record(AuditEvent.admin(clock.instant(), subject, context.api().name, context.apiVersion(),
                    fields(resources, errors), outcome));
            return context.keep();
        }

        @Override
        public void unanswered(PolicyContext context) {
            trail.record(AuditEvent.admin(clock.instant(), subject, context.api().name, context.apiVersion(),
                    fields(resources, null), "unanswered"));
        }
    }
}
