package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.SecurityUtils;

/**
 * ACL names as Kafka reads them: kafka-clients' enum spelling ({@code TRANSACTIONAL_ID},
 * {@code DESCRIBE_CONFIGS}) or the one Kafka's tools print ({@code TransactionalId},
 * {@code DescribeConfigs}, through kafka-clients' {@code SecurityUtils}); UNKNOWN for anything else.
 */
public final class AclNames {
    private AclNames() {
    }

    public static ResourceType resourceType(String name) {
        ResourceType type = ResourceType.fromString(name);
        return type != ResourceType.UNKNOWN ? type : SecurityUtils.resourceType(name);
    }

    public static AclOperation operation(String name) {
        AclOperation operation = AclOperation.fromString(name);
        return operation != AclOperation.UNKNOWN ? operation : SecurityUtils.operation(name);
    }

    public static AclPermissionType permission(String name) {
        AclPermissionType permission = AclPermissionType.fromString(name);
        return permission != AclPermissionType.UNKNOWN ? permission : SecurityUtils.permissionType(name);
    }

    /**
     * A principal written {@code Type:name}.
     *
     * @throws IllegalArgumentException when it is not of that form
     */
    public static KafkaPrincipal principal(String text) {
        return SecurityUtils.parseKafkaPrincipal(text);
    }
}
