package org.kafscale.proxy.routing.fetch;

import java.util.Map;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.routing.engine.Part;

/**
 * What one connection asks its brokers beyond what its client asked, for the client's next Fetch
 * to find answered: {@link #NONE}, or {@link ReadAheadPrefetcher}. Chosen by {@link FetchRoute};
 * the partition engine never sees it. Confined to the connection's event loop.
 */
interface FetchPrefetcher {

    /** Asks nothing ahead; a part still polling when its client is answered is parked as a poll. */
    FetchPrefetcher NONE = new FetchPrefetcher() {
        @Override
        public void answered(FetchApi fetch, Map<PartitionRef, PartitionData> results) {
        }

        @Override
        public boolean keeps(FetchApi fetch, Part<FetchResponseData> part) {
            return false;
        }
    };

    /**
     * The client's Fetch is being answered with {@code results} (its merged partitions, after
     * {@link FetchByteLimit}); the Fetch's request and parts are still at hand.
     */
    void answered(FetchApi fetch, Map<PartitionRef, PartitionData> results);

    /**
     * A part still polling its broker when the client was answered: true when its answer is kept
     * for the next Fetch that asks the same (it is then this prefetcher's), false to park it as a
     * poll whose answer is released unless a Fetch adopts it in flight.
     */
    boolean keeps(FetchApi fetch, Part<FetchResponseData> part);
}
