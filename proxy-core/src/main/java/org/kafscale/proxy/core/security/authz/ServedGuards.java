package org.kafscale.proxy.core.security.authz;

import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The guard of each key the proxy serves, which is all {@link AuthorizationPolicy} needs of the
 * API registry. Core's {@code core.apis.ApiCatalog} is one; asking for this rather than the catalog
 * keeps authorization free of the catalog, which holds guards (no package cycle).
 */
@FunctionalInterface
public interface ServedGuards {

    /** The guard of {@code api} when the proxy serves it; empty for a key it does not serve. */
    Optional<Guard> guardOf(ApiKeys api);
}
