package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.config.ConfigResource;

/**
 * The config resource types (the {@code resource_type} of DescribeConfigs, AlterConfigs and
 * IncrementalAlterConfigs) whose resource is one broker's own: BROKER with a broker id as its name
 * (the empty name is the cluster-wide default, which any broker serves) and BROKER_LOGGER.
 */
public final class ConfigResourceTypes {
    public static final byte BROKER = ConfigResource.Type.BROKER.id();
    public static final byte BROKER_LOGGER = ConfigResource.Type.BROKER_LOGGER.id();

    private ConfigResourceTypes() {
    }

    /** Whether the resource belongs to the broker its name gives, so only that broker may answer it. */
    public static boolean namesOneBroker(byte type, String name) {
        return type == BROKER_LOGGER || (type == BROKER && name != null && !name.isEmpty());
    }
}
