package org.kafscale.proxy.lfs.resolve;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.Hooks;
import org.kafscale.proxy.core.policy.Policy;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.lfs.Async;

/**
 * LFS resolution on Fetch: through the proxy, each record of a resolved topic ({@link ResolveRule})
 * whose value is an LFS envelope gets its payload from S3 instead, checked against the envelope's
 * size and SHA-256 before a byte of it is sent, with a {@value AnswerResolution#RESOLVED_HEADER}
 * header added; key, timestamp, offset and the other headers stay, and so do records that are not
 * envelopes, transaction markers and the aborted-transaction lists. A partition whose payload
 * cannot be delivered answers an error with no records ({@link ResolveFailure}); the others flow.
 * The answer stays within the request's {@code max_bytes} and each partition's
 * {@code partition_max_bytes} at the records' resolved sizes ({@link FetchTrim}), and every
 * resolving Fetch of the process shares one memory budget ({@link ResolutionBudget}): past it an
 * answer waits. Clients reading from the brokers, and topics no rule covers, get the envelopes.
 *
 * <p>In the chain after the tenant policy and authorization (real topic names, no refused request)
 * and before record encryption, so its answer hook runs after encryption's: an envelope stored
 * encrypted is decrypted first. Reading records, S3 and hashing run on the LFS blocking executor;
 * the answer is changed on the connection's event loop. Shared by every connection.
 */
public final class LfsFetchResolution implements Policy {
    private final List<ResolveRule> rules;
    private final Topology topology;
    private final AnswerResolution resolution;

    /** @param rules the topics resolved, for whom */
    public LfsFetchResolution(List<ResolveRule> rules, ResolutionServices services) {
        this.rules = List.copyOf(rules);
        this.topology = services.lfs.topology();
        this.resolution = services.resolution;
    }

    @Override
    public void register(Hooks hooks) {
        hooks.onRequest(FetchRequestData.class, this::onFetch);
    }

    /** A Fetch of a client some rule may cover carries its limits to its answer. */
    private Future<RequestOutcome> onFetch(FetchRequestData request, PolicyContext context) {
        KafkaPrincipal principal = context.connection().principal();
        Optional<String> cluster = context.connection().virtualCluster();
        if (rules.stream().noneMatch(r -> (r.principals().isEmpty() || r.principals().contains(principal))
                && (r.virtualCluster().isEmpty() || r.virtualCluster().equals(cluster)))) {
            return context.forward();
        }
        return context.now(RequestOutcome.forward(null, new ResolvedAnswer(FetchLimits.of(request))));
    }

    /** The answer of one Fetch, with that Fetch's limits. */
    private final class ResolvedAnswer implements AnswerPolicy {
        private final FetchLimits limits;

        ResolvedAnswer(FetchLimits limits) {
            this.limits = limits;
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage message, PolicyContext context) {
            if (!(message instanceof FetchResponseData answer)) {
                return context.keep();
            }
            KafkaPrincipal principal = context.connection().principal();
            Optional<String> cluster = context.connection().virtualCluster();
            AnswerResolution.Plan plan = resolution.plan(answer, limits, (name, id) -> coveredName(name, id,
                    principal, cluster));
            if (plan.isEmpty()) {
                return context.keep();
            }
            Promise<AnswerOutcome> outcome = context.newAnswerOutcome();
            resolution.resolve(plan, context.connection()).whenComplete((results, error) ->
                    Async.onLoop(context.loop(), () -> {
                        if (error != null) {
                            outcome.setFailure(Async.unwrap(error));
                            return;
                        }
                        try {
                            results.apply();
                            outcome.setSuccess(AnswerOutcome.replace(answer));
                        } catch (RuntimeException e) {
                            outcome.tryFailure(e);
                        } finally {
                            // The answer is encoded and written by the outcome's listeners on this
                            // loop; the budget comes back in the loop's next task, after them.
                            context.loop().execute(results::release);
                        }
                    }));
            return outcome;
        }
    }

    /** The topic's real name (given, or by id for Fetch v13+) when it is resolved for this client; else null. */
    private String coveredName(String name, Uuid id, KafkaPrincipal principal, Optional<String> cluster) {
        String real = name;
        if (real == null || real.isEmpty()) {
            if (id == null || Uuid.ZERO_UUID.equals(id)) {
                return null;
            }
            real = topology.snapshot().topic(id).map(TopicLayout::name).orElse(null);
        }
        String topic = real;
        return topic != null && rules.stream().anyMatch(r -> r.covers(topic, principal, cluster)) ? topic : null;
    }
}
