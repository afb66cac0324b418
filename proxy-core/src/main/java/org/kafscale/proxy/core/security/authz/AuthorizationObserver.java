package org.kafscale.proxy.core.security.authz;

import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;
import org.kafscale.proxy.core.policy.PolicyConnection;

/**
 * Hears each refusal: for metrics, the API and the type of resource refused (both bounded sets);
 * for the audit trail, each refused resource with its operation.
 */
@FunctionalInterface
public interface AuthorizationObserver {
    AuthorizationObserver NONE = (api, type) -> { };

    /** A request of {@code api} had at least one resource of {@code type} refused. */
    void refused(ApiKeys api, ResourceType type);

    /**
     * A request of {@code api} from {@code connection} had {@code denials} refused (at most
     * {@link Access#MAX_DENIALS} of them). Called on the connection's event loop: must not block.
     */
    default void denied(PolicyConnection connection, ApiKeys api, List<Denial> denials) {
    }

    /**
     * One refused resource.
     *
     * @param name the resource's name; a topic given by an id the topology does not know is named by the id
     */
    record Denial(ResourceType type, String name, AclOperation operation) {
    }
}
