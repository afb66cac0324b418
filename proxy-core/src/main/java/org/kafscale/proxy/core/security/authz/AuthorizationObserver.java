package org.kafscale.proxy.core.security.authz;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;

/** Hears each refusal, for metrics: the API and the type of resource refused (both bounded sets). */
@FunctionalInterface
public interface AuthorizationObserver {
    AuthorizationObserver NONE = (api, type) -> { };

    /** A request of {@code api} had at least one resource of {@code type} refused. */
    void refused(ApiKeys api, ResourceType type);
}
