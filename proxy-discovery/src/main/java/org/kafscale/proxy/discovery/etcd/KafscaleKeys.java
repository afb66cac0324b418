package org.kafscale.proxy.discovery.etcd;

import java.util.Optional;

/** KafScale's etcd keys that the proxy reads, and how their names parse. */
final class KafscaleKeys {
    static final String SNAPSHOT = "/kafscale/metadata/snapshot";
    static final String PARTITION_LEASES = "/kafscale/partition-leases/";
    static final String GROUP_LEASES = "/kafscale/group-leases/";

    private KafscaleKeys() {
    }

    /** A partition lease's topic and partition. */
    record PartitionKey(String topic, int partition) {
    }

    /**
     * {@code /kafscale/partition-leases/<topic>/<partition>}: the partition is the text after the
     * last slash, the topic everything before it.
     */
    static Optional<PartitionKey> partitionLease(String key) {
        if (!key.startsWith(PARTITION_LEASES)) {
            return Optional.empty();
        }
        String rest = key.substring(PARTITION_LEASES.length());
        int slash = rest.lastIndexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            return Optional.empty();
        }
        try {
            int partition = Integer.parseInt(rest.substring(slash + 1));
            return partition < 0 ? Optional.empty() : Optional.of(new PartitionKey(rest.substring(0, slash), partition));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** {@code /kafscale/group-leases/<group>}: a non-empty group id. */
    static Optional<String> groupLease(String key) {
        if (!key.startsWith(GROUP_LEASES) || key.length() == GROUP_LEASES.length()) {
            return Optional.empty();
        }
        return Optional.of(key.substring(GROUP_LEASES.length()));
    }

    /** A lease value: the owner's broker id as decimal text. */
    static Optional<Integer> brokerId(String value) {
        try {
            return Optional.of(Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
