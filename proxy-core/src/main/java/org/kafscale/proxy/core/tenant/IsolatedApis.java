package org.kafscale.proxy.core.tenant;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What {@link TenantPolicy} needs of the API registry: how each key is kept within a virtual
 * cluster. Core's {@code core.apis.ApiCatalog} is one; asking for this rather than the catalog
 * keeps the tenant package free of the catalog, which holds isolations (no package cycle).
 */
@FunctionalInterface
public interface IsolatedApis {

    /** How {@code api} is served to a virtual cluster; refused for a key the proxy does not serve. */
    Isolation isolationOf(ApiKeys api);
}
