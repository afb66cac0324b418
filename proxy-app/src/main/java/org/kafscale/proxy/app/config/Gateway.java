package org.kafscale.proxy.app.config;

import java.nio.file.Path;
import java.util.Map;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/**
 * What the gateway file (KAFSCALE_PROXY_GATEWAY_FILE) configures: its virtual clusters, and the
 * quotas and ACL files of those that have any.
 *
 * @param quotas each virtual cluster's quotas, by its name; a virtual cluster without is absent
 * @param aclFiles each virtual cluster's own ACL file, in its own names, by its name; a virtual
 *     cluster without is absent
 */
public record Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas, Map<String, Path> aclFiles) {
    public static final Gateway NONE = new Gateway(VirtualClusters.NONE, Map.of(), Map.of());

    public Gateway {
        quotas = Map.copyOf(quotas);
        aclFiles = Map.copyOf(aclFiles);
    }
}
