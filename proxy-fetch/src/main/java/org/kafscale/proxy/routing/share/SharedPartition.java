package org.kafscale.proxy.routing.share;

import org.apache.kafka.common.Uuid;

/** A partition of a share session, as share requests name it: by topic id. */
record SharedPartition(Uuid topicId, int partition) {
    @Override
    public String toString() {
        return topicId + "-" + partition;
    }
}
