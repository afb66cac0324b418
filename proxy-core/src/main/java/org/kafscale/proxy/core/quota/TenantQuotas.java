package org.kafscale.proxy.core.quota;

import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The quotas of one virtual cluster: what all its clients together may use, and what each
 * principal in it may use (its own entry, else the one every principal gets). A client is held to
 * the stricter of the two that it is over.
 *
 * @param cluster the virtual cluster's rates, over all its connections
 * @param perPrincipal each principal's rates, over all its connections, unless it has its own
 * @param principals the rates of principals named one by one
 */
public record TenantQuotas(QuotaLimits cluster, QuotaLimits perPrincipal, Map<KafkaPrincipal, QuotaLimits> principals) {
    public static final TenantQuotas NONE = new TenantQuotas(QuotaLimits.NONE, QuotaLimits.NONE, Map.of());

    public TenantQuotas {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(perPrincipal, "perPrincipal");
        principals = Map.copyOf(principals);
    }

    /** The rates {@code principal} is held to on its own. */
    public QuotaLimits of(KafkaPrincipal principal) {
        return principals.getOrDefault(principal, perPrincipal);
    }

    /** Whether any rate is limited: a virtual cluster without quotas costs nothing per request. */
    public boolean limits(QuotaKind kind) {
        if (cluster.of(kind) > 0 || perPrincipal.of(kind) > 0) {
            return true;
        }
        for (QuotaLimits limits : principals.values()) {
            if (limits.of(kind) > 0) {
                return true;
            }
        }
        return false;
    }

    public boolean isEmpty() {
        for (QuotaKind kind : QuotaKind.values()) {
            if (limits(kind)) {
                return false;
            }
        }
        return true;
    }
}
