package org.kafscale.proxy.core.apis;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.security.authz.Guard;
import org.kafscale.proxy.core.security.authz.ServedGuards;
import org.kafscale.proxy.core.tenant.IsolatedApis;
import org.kafscale.proxy.core.tenant.Isolation;

/**
 * What the proxy does with each API key, as the dispatcher, the ApiVersions answer, the authorizer
 * and the docs need to know it: one {@link ApiSpec} per key. The dispatcher refuses, and
 * ApiVersions leaves out, every key not served on the connection; the authorizer checks only
 * served keys, with each key's guard. An instance is handed to each of them where the proxy is
 * composed: the proxy's is proxy-fetch's {@code routing.apis.Apis}, where the routes are.
 */
public interface ApiCatalog extends ServedGuards, IsolatedApis {

    /** Every placed key with its spec, in id order. */
    Map<ApiKeys, ApiSpec> all();

    /** The spec of {@code api}; empty only for a key no one has placed yet (a test fails then). */
    default Optional<ApiSpec> spec(ApiKeys api) {
        return Optional.ofNullable(all().get(api));
    }

    /**
     * Whether {@code api} is advertised and served on a connection that does ({@code addressesBroker})
     * or does not come in on one broker's own port.
     */
    default boolean servedOn(ApiKeys api, boolean addressesBroker) {
        return spec(api).map(spec -> spec.servedOn(addressesBroker)).orElse(false);
    }

    @Override
    default Optional<Guard> guardOf(ApiKeys api) {
        return spec(api).filter(ApiSpec::served).map(ApiSpec::guard);
    }

    @Override
    default Isolation isolationOf(ApiKeys api) {
        return spec(api).filter(ApiSpec::served).map(ApiSpec::isolation).orElse(Isolation.NOT_ISOLATED);
    }

    /** Whether {@code api} is served on some connection. */
    default boolean served(ApiKeys api) {
        return spec(api).map(ApiSpec::served).orElse(false);
    }

    /** The Markdown table of {@code docs/architecture.md}: every key, in id order. */
    default String markdown() {
        StringBuilder table = new StringBuilder(
                "| Key | API | Through the proxy | In a virtual cluster |\n|---|---|---|---|\n");
        for (ApiKeys api : ApiKeys.values()) {
            String text = spec(api).map(ApiSpec::docRow).orElse("**undescribed**");
            // A key refused to everyone says why once, in the column before.
            String tenant = spec(api).filter(ApiSpec::served).map(spec -> spec.isolation().docRow()).orElse("—");
            table.append("| ").append(api.id).append(" | ").append(api.name).append(" | ").append(text)
                    .append(" | ").append(tenant).append(" |\n");
        }
        return table.toString();
    }

    /** A catalog of {@code specs}, each filed under its own key. */
    static ApiCatalog of(Map<ApiKeys, ApiSpec> specs) {
        Map<ApiKeys, ApiSpec> copy = Collections.unmodifiableMap(new EnumMap<>(specs));
        return () -> copy;
    }
}
