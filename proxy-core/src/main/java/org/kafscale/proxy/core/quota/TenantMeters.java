package org.kafscale.proxy.core.quota;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The meters of one virtual cluster's quotas: one per limited kind for the whole virtual
 * cluster, and one per limited kind for each principal, made when it first sends. The
 * principals are those the gateway file places in the virtual cluster, so the meters are bounded.
 */
final class TenantMeters {
    private final TenantQuotas quotas;
    private final Map<QuotaKind, RateMeter> cluster = new EnumMap<>(QuotaKind.class);
    /** The kinds any of its quotas counts, settled once: asked on every request. */
    private final Set<QuotaKind> limited = EnumSet.noneOf(QuotaKind.class);
    private final ConcurrentHashMap<KafkaPrincipal, Map<QuotaKind, RateMeter>> principals =
            new ConcurrentHashMap<>();

    TenantMeters(TenantQuotas quotas) {
        this.quotas = quotas;
        for (QuotaKind kind : QuotaKind.values()) {
            long rate = quotas.cluster().of(kind);
            if (rate > 0) {
                cluster.put(kind, new RateMeter(rate));
            }
            if (quotas.limits(kind)) {
                limited.add(kind);
            }
        }
    }

    /** The quotas these meters hold the virtual cluster to. */
    TenantQuotas quotas() {
        return quotas;
    }

    /** Whether any quota of the virtual cluster counts {@code kind}. */
    boolean limits(QuotaKind kind) {
        return limited.contains(kind);
    }

    /**
     * Counts {@code bytes} of {@code principal}; the longer of the waits its own quota and the
     * virtual cluster's ask for, in nanoseconds (0 when it is within both).
     */
    long count(KafkaPrincipal principal, QuotaKind kind, long bytes, long nowNanos) {
        long wait = 0;
        RateMeter whole = cluster.get(kind);
        if (whole != null) {
            wait = whole.count(bytes, nowNanos);
        }
        RateMeter own = metersOf(principal).get(kind);
        if (own != null) {
            wait = Math.max(wait, own.count(bytes, nowNanos));
        }
        return wait;
    }

    private Map<QuotaKind, RateMeter> metersOf(KafkaPrincipal principal) {
        Map<QuotaKind, RateMeter> meters = principals.get(principal);
        if (meters != null) {
            return meters;
        }
        return principals.computeIfAbsent(principal, p -> {
            QuotaLimits limits = quotas.of(p);
            Map<QuotaKind, RateMeter> made = new EnumMap<>(QuotaKind.class);
            for (QuotaKind kind : QuotaKind.values()) {
                if (limits.of(kind) > 0) {
                    made.put(kind, new RateMeter(limits.of(kind)));
                }
            }
            return made;
        });
    }
}
