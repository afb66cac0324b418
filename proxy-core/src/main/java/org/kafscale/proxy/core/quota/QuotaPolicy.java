package org.kafscale.proxy.core.quota;

import io.netty.util.concurrent.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.policy.RequestPolicy;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/**
 * Holds each virtual cluster, and each principal in it, to its byte rates, with Kafka's
 * semantics: a client past a rate gets its answer at once, carrying in {@code throttle_time_ms}
 * how long it should wait, and the proxy reads nothing more from that connection for that long,
 * as a broker mutes the channel of a throttled client (KIP-219). A client that honours the field
 * (every Java client since 2.0, librdkafka) never notices the mute; one that does not is held all
 * the same.
 *
 * <p>Produce counts the request's bytes as it is read, so the throttle begins before the request
 * is even sent on; Fetch counts the answer's bytes as it comes back. A broker's own throttle in
 * the answer is kept when it is the longer.
 */
public final class QuotaPolicy implements RequestPolicy {
    /** The longest one answer throttles for: a client past its rate by more is throttled again on its next request. */
    static final long MAX_THROTTLE_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final VirtualClusters clusters;
    private final Map<String, TenantMeters> meters = new HashMap<>();
    private final QuotaObserver observer;
    private final LongSupplier nanoClock;

    /**
     * @param quotas each virtual cluster's quotas, by its name (a virtual cluster absent or without any is not held)
     * @param nanoClock the clock rates are measured on ({@code System::nanoTime} but in tests)
     */
    public QuotaPolicy(VirtualClusters clusters, Map<String, TenantQuotas> quotas, QuotaObserver observer,
                       LongSupplier nanoClock) {
        this.clusters = clusters;
        this.observer = observer;
        this.nanoClock = nanoClock;
        quotas.forEach((name, limits) -> {
            if (!limits.isEmpty()) {
                meters.put(name, new TenantMeters(limits));
            }
        });
    }

    /** Whether any virtual cluster has a quota: without one the policy need not be in the chain. */
    public boolean holdsAny() {
        return !meters.isEmpty();
    }

    @Override
    public boolean readsRequests(ApiKeys api) {
        return api == ApiKeys.PRODUCE || api == ApiKeys.FETCH;
    }

    @Override
    public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
        KafkaPrincipal principal = context.connection().principal();
        VirtualCluster cluster = clusters.of(principal).orElse(null);
        TenantMeters tenant = cluster == null ? null : meters.get(cluster.name());
        QuotaDirection direction = context.api() == ApiKeys.PRODUCE ? QuotaDirection.PRODUCE : QuotaDirection.FETCH;
        if (tenant == null || !tenant.limits(direction)) {
            return context.forward();
        }
        Holder holder = new Holder(cluster.name(), principal, tenant, direction);
        if (direction == QuotaDirection.FETCH) {
            return context.now(RequestOutcome.forward(null, holder));
        }
        long millis = holder.count(context.requestBytes(), context);
        return millis == 0 ? context.forward() : context.now(RequestOutcome.forward(null, holder.answering(millis)));
    }

    /** One request's client, counted against its quotas. */
    private final class Holder implements AnswerPolicy {
        private final String cluster;
        private final KafkaPrincipal principal;
        private final TenantMeters tenant;
        private final QuotaDirection direction;
        /** The throttle the answer carries; for Fetch set when its answer is counted. */
        private long millis;

        Holder(String cluster, KafkaPrincipal principal, TenantMeters tenant, QuotaDirection direction) {
            this.cluster = cluster;
            this.principal = principal;
            this.tenant = tenant;
            this.direction = direction;
        }

        Holder answering(long throttleMillis) {
            this.millis = throttleMillis;
            return this;
        }

        /** Counts {@code bytes}; the throttle they earn in milliseconds, which has begun. */
        long count(long bytes, PolicyContext context) {
            observer.counted(cluster, principal, direction, bytes);
            long waitNanos = tenant.count(principal, direction, bytes, nanoClock.getAsLong());
            if (waitNanos == 0) {
                return 0;
            }
            long throttle = Math.min(MAX_THROTTLE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
            context.connection().throttle(throttle);
            observer.throttled(cluster, principal, direction, throttle);
            return throttle;
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            if (direction == QuotaDirection.FETCH) {
                millis = count(context.answerBytes(), context);
            }
            if (millis == 0) {
                return context.keep();
            }
            if (answer instanceof ProduceResponseData produce && produce.throttleTimeMs() < millis) {
                produce.setThrottleTimeMs((int) millis);
                return context.now(AnswerOutcome.replace(produce));
            }
            if (answer instanceof FetchResponseData fetch && fetch.throttleTimeMs() < millis) {
                fetch.setThrottleTimeMs((int) millis);
                return context.now(AnswerOutcome.replace(fetch));
            }
            return context.keep();
        }
    }
}
