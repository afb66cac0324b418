package org.kafscale.proxy.core.quota;

import io.netty.util.concurrent.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.policy.RequestPolicy;

/**
 * Holds each virtual cluster, and each principal in it, to its quotas, with Kafka's semantics: a
 * client past a rate gets its answer at once, carrying in {@code throttle_time_ms} how long it
 * should wait, and the proxy reads nothing more from that connection for that long, as a broker
 * mutes the channel of a throttled client (KIP-219). A client that waits by itself (the Java
 * client since 2.0) never notices the mute; one that does not is held all the same.
 *
 * <p>Produce counts the request's bytes as it is read, so the throttle begins before the request
 * is even sent on; Fetch counts the answer's bytes as it comes back. The request-time quota
 * charges each request of the client with the loop time its connection took since its previous
 * one. A broker's own throttle in the answer is kept when it is the longer.
 */
public final class QuotaPolicy implements RequestPolicy {
    /** The longest one answer throttles for: a client past its rate by more is throttled again on its next request. */
    static final long MAX_THROTTLE_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final Map<String, TenantMeters> meters = new HashMap<>();
    private final QuotaObserver observer;
    private final LongSupplier nanoClock;
    /** Whether a request-time quota is set anywhere: then every API's requests are read. */
    private final boolean timesRequests;

    /**
     * @param quotas each virtual cluster's quotas, by its name (a virtual cluster absent or without any is not held)
     * @param nanoClock the clock rates are measured on ({@code System::nanoTime} but in tests)
     */
    public QuotaPolicy(Map<String, TenantQuotas> quotas, QuotaObserver observer, LongSupplier nanoClock) {
        this(quotas, observer, nanoClock, Optional.empty());
    }

    /**
     * As {@link #QuotaPolicy(Map, QuotaObserver, LongSupplier)}, after a live reconfiguration:
     * a virtual cluster whose quotas are as in {@code previous} keeps its meters, so its clients
     * still connected through the previous policy and those connecting through this one share
     * one rate; a virtual cluster whose quotas changed starts afresh.
     */
    public QuotaPolicy(Map<String, TenantQuotas> quotas, QuotaObserver observer, LongSupplier nanoClock,
                       Optional<QuotaPolicy> previous) {
        this.observer = observer;
        this.nanoClock = nanoClock;
        quotas.forEach((name, limits) -> {
            if (!limits.isEmpty()) {
                TenantMeters kept = previous.map(p -> p.meters.get(name)).filter(m -> m.quotas().equals(limits))
                        .orElse(null);
                meters.put(name, kept != null ? kept : new TenantMeters(limits));
            }
        });
        this.timesRequests = meters.values().stream().anyMatch(m -> m.limits(QuotaKind.REQUEST_TIME));
    }

    /** Whether any virtual cluster has a quota: without one the policy need not be in the chain. */
    public boolean holdsAny() {
        return !meters.isEmpty();
    }

    @Override
    public boolean readsRequests(ApiKeys api) {
        return timesRequests || api == ApiKeys.PRODUCE || api == ApiKeys.FETCH;
    }

    @Override
    public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
        KafkaPrincipal principal = context.connection().principal();
        // Placed by the tenant policy, which runs first, on whichever listener the client came in on.
        String cluster = context.connection().virtualCluster().orElse(null);
        TenantMeters tenant = cluster == null ? null : meters.get(cluster);
        if (tenant == null) {
            return context.forward();
        }
        Charge charge = new Charge(cluster, principal, tenant);
        long millis = 0;
        if (tenant.limits(QuotaKind.REQUEST_TIME)) {
            millis = charge.count(QuotaKind.REQUEST_TIME, context.connection().takeLoopTime(), context);
        }
        if (context.api() == ApiKeys.PRODUCE && tenant.limits(QuotaKind.PRODUCE)) {
            millis = Math.max(millis, charge.count(QuotaKind.PRODUCE, context.requestBytes(), context));
        }
        boolean fetchCounted = context.api() == ApiKeys.FETCH && tenant.limits(QuotaKind.FETCH);
        if (millis == 0 && !fetchCounted) {
            return context.forward();
        }
        return context.now(RequestOutcome.forward(null, charge.answering(millis, fetchCounted)));
    }

    /** One request's client, charged against its quotas; its answer carries the throttle. */
    private final class Charge implements AnswerPolicy {
        private final String cluster;
        private final KafkaPrincipal principal;
        private final TenantMeters tenant;
        /** The throttle the answer carries, in milliseconds. */
        private long millis;
        /** Whether the answer's bytes count against a fetch quota. */
        private boolean fetchCounted;

        Charge(String cluster, KafkaPrincipal principal, TenantMeters tenant) {
            this.cluster = cluster;
            this.principal = principal;
            this.tenant = tenant;
        }

        Charge answering(long throttleMillis, boolean countsFetch) {
            this.millis = throttleMillis;
            this.fetchCounted = countsFetch;
            return this;
        }

        /** Counts {@code amount} of {@code kind}; the throttle it earns in milliseconds, which has begun. */
        long count(QuotaKind kind, long amount, PolicyContext context) {
            observer.counted(cluster, principal, kind, amount);
            long waitNanos = tenant.count(principal, kind, amount, nanoClock.getAsLong());
            if (waitNanos == 0) {
                return 0;
            }
            long throttle = Math.min(MAX_THROTTLE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
            context.connection().throttle(throttle);
            observer.throttled(cluster, principal, kind, throttle);
            return throttle;
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            if (fetchCounted) {
                millis = Math.max(millis, count(QuotaKind.FETCH, context.answerBytes(), context));
            }
            if (millis == 0 || !ThrottleTimes.raise(answer, (int) millis)) {
                return context.keep();
            }
            return context.now(AnswerOutcome.replace(answer));
        }
    }
}
