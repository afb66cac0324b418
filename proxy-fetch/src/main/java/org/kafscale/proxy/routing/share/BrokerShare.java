package org.kafscale.proxy.routing.share;

import java.util.List;
import java.util.Map;

/**
 * What one broker is to be sent for one client request: the proxy's session with that broker at
 * its own epoch, the partitions the request names there (added to the broker's session, or carrying
 * acknowledgements of records that broker delivered) and those forgotten there.
 *
 * @param broker the broker's real id
 * @param epoch that broker's session epoch for this request: 0 opens, -1 closes
 * @param named partitions to name, in order, each with its acknowledgement batches (maybe none)
 * @param forgotten partitions the broker's session drops
 */
record BrokerShare(int broker, int epoch, Map<SharedPartition, List<AckBatch>> named, List<SharedPartition> forgotten) {
    static final int OPEN_EPOCH = 0;
    static final int FINAL_EPOCH = -1;

    boolean closes() {
        return epoch == FINAL_EPOCH;
    }
}
