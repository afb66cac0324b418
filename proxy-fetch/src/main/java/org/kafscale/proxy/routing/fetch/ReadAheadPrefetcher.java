package org.kafscale.proxy.routing.fetch;

import java.util.Map;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.routing.engine.Part;

/**
 * Read-ahead ({@link ReadAhead}): when a Fetch went to more than one broker, each broker whose part
 * brought records the client gets is asked again as the client is answered, at the offsets of the
 * client's next Fetch, and parts left still polling keep their answers too; the next Fetch adopts
 * what asks exactly the same ({@link ParkedPolls}).
 *
 * <p>Only a split Fetch is read ahead: only then does the proxy serialise round trips a direct
 * consumer would overlap (one owner passes through, and in {@code brokers} and {@code ports} mode
 * a client splits by owner itself).
 */
final class ReadAheadPrefetcher implements FetchPrefetcher {
    private final ParkedPolls parked;

    ReadAheadPrefetcher(ParkedPolls parked) {
        this.parked = parked;
    }

    @Override
    public void answered(FetchApi fetch, Map<PartitionRef, PartitionData> results) {
        Map<Integer, Part<FetchResponseData>> byBroker = ReadAhead.onePartPerBroker(fetch.sentParts());
        if (byBroker.size() < 2) {
            return;
        }
        for (Part<FetchResponseData> part : byBroker.values()) {
            Map<PartitionRef, FetchPartition> next = ReadAhead.next(part, fetch.entries(), results, fetch::results);
            if (next.isEmpty() || parked.holds(part.broker().id())) {
                continue;
            }
            parked.readAhead(part.broker().id(), fetch.asked(next), fetch.askAgain(part, next), fetch.loop(), true);
        }
    }

    /** The client, answered empty for the part's partitions, asks them again at the same offsets. */
    @Override
    public boolean keeps(FetchApi fetch, Part<FetchResponseData> part) {
        parked.readAhead(part.broker().id(), fetch.asked(part), part.answer(), fetch.loop(), false);
        return true;
    }
}
