package org.kafscale.proxy.app.config;

import java.util.Map;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.validation.ValidationRules;

/**
 * What the gateway file (KAFSCALE_PROXY_GATEWAY_FILE) configures: its virtual clusters, the
 * quotas of those that have any, and record validation.
 *
 * @param quotas each virtual cluster's quotas, by its name; a virtual cluster without is absent
 * @param validation the record validation rules, global and per virtual cluster ({@link ValidationRules#NONE}: off)
 */
public record Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas, ValidationRules validation) {
    public static final Gateway NONE = new Gateway(VirtualClusters.NONE, Map.of());

    public Gateway {
        quotas = Map.copyOf(quotas);
    }

    /** Virtual clusters and quotas, no validation. */
    public Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas) {
        this(virtualClusters, quotas, ValidationRules.NONE);
    }
}
