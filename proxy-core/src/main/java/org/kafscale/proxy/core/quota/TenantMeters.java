package org.kafscale.proxy.core.quota;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The meters of one virtual cluster's quotas: one per limited direction for the whole virtual
 * cluster, and one per limited direction for each principal, made when it first sends. The
 * principals are those the gateway file places in the virtual cluster, so the meters are bounded.
 */
final class TenantMeters {
    private final TenantQuotas quotas;
    private final Map<QuotaDirection, ByteRateMeter> cluster = new EnumMap<>(QuotaDirection.class);
    private final ConcurrentHashMap<KafkaPrincipal, Map<QuotaDirection, ByteRateMeter>> principals =
            new ConcurrentHashMap<>();

    TenantMeters(TenantQuotas quotas) {
        this.quotas = quotas;
        for (QuotaDirection direction : QuotaDirection.values()) {
            long rate = quotas.cluster().of(direction);
            if (rate > 0) {
                cluster.put(direction, new ByteRateMeter(rate));
            }
        }
    }

    /** Whether any quota of the virtual cluster counts {@code direction}. */
    boolean limits(QuotaDirection direction) {
        return quotas.limits(direction);
    }

    /**
     * Counts {@code bytes} of {@code principal}; the longer of the waits its own quota and the
     * virtual cluster's ask for, in nanoseconds (0 when it is within both).
     */
    long count(KafkaPrincipal principal, QuotaDirection direction, long bytes, long nowNanos) {
        long wait = 0;
        ByteRateMeter whole = cluster.get(direction);
        if (whole != null) {
            wait = whole.count(bytes, nowNanos);
        }
        ByteRateMeter own = metersOf(principal).get(direction);
        if (own != null) {
            wait = Math.max(wait, own.count(bytes, nowNanos));
        }
        return wait;
    }

    private Map<QuotaDirection, ByteRateMeter> metersOf(KafkaPrincipal principal) {
        Map<QuotaDirection, ByteRateMeter> meters = principals.get(principal);
        if (meters != null) {
            return meters;
        }
        return principals.computeIfAbsent(principal, p -> {
            QuotaLimits limits = quotas.of(p);
            Map<QuotaDirection, ByteRateMeter> made = new EnumMap<>(QuotaDirection.class);
            for (QuotaDirection direction : QuotaDirection.values()) {
                if (limits.of(direction) > 0) {
                    made.put(direction, new ByteRateMeter(limits.of(direction)));
                }
            }
            return made;
        });
    }
}
