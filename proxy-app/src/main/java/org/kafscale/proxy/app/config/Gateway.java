package org.kafscale.proxy.app.config;

import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/**
 * What the gateway file (KAFSCALE_PROXY_GATEWAY_FILE) configures: its virtual clusters, and the
 * quotas of those that have any.
 *
 * @param quotas each virtual cluster's quotas, by its name; a virtual cluster without is absent
 * @param audit the audit trail's sinks ({@code audit}), when configured
 */
public record Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas,
                      Optional<AuditSettings> audit) {
    public static final Gateway NONE = new Gateway(VirtualClusters.NONE, Map.of());

    public Gateway {
        quotas = Map.copyOf(quotas);
    }

    /** Virtual clusters and quotas, no audit trail. */
    public Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas) {
        this(virtualClusters, quotas, Optional.empty());
    }
}
