package org.kafscale.proxy.core.testing;

import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.security.authz.Guard;

/**
 * A small catalog with one key of each kind, for the tests of what core does with a catalog (the
 * dispatcher, ApiVersions): the proxy's own, one entry per key, is proxy-fetch's
 * {@code routing.apis.Apis}, and its own tests hold it to every {@code ApiKeys} value.
 */
public final class TestApiCatalog {
    private static final ApiCatalog CATALOG;

    static {
        Map<ApiKeys, ApiSpec> specs = new EnumMap<>(ApiKeys.class);
        for (ApiKeys api : new ApiKeys[] {ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.FIND_COORDINATOR,
                ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_TOPIC_PARTITIONS}) {
            specs.put(api, new ApiSpec(api, ApiSpec.Serving.ANSWERED_HERE, Guard.unchecked(), "answered here"));
        }
        for (ApiKeys api : new ApiKeys[] {ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.JOIN_GROUP,
                ApiKeys.SYNC_GROUP, ApiKeys.LIST_GROUPS}) {
            specs.put(api, new ApiSpec(api, ApiSpec.Serving.FORWARDED, Guard.unchecked(), "forwarded"));
        }
        for (ApiKeys api : new ApiKeys[] {ApiKeys.DESCRIBE_LOG_DIRS, ApiKeys.ALTER_REPLICA_LOG_DIRS}) {
            specs.put(api, new ApiSpec(api, ApiSpec.Serving.ADDRESSED_BROKER_ONLY, Guard.unchecked(), "its broker"));
        }
        for (ApiKeys api : new ApiKeys[] {ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE, ApiKeys.VOTE}) {
            specs.put(api, new ApiSpec(api, ApiSpec.Serving.REFUSED, Guard.refusedWhole(), "refused"));
        }
        CATALOG = ApiCatalog.of(specs);
    }

    private TestApiCatalog() {
    }

    public static ApiCatalog catalog() {
        return CATALOG;
    }
}
