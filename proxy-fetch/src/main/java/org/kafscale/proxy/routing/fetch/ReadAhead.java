package org.kafscale.proxy.routing.fetch;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.routing.engine.Part;

/**
 * What a client's next Fetch will ask a broker whose part just brought records, so the proxy can
 * ask it first.
 *
 * <p>With one advertised node (advertise mode {@code single}) a consumer keeps one Fetch in flight
 * to the proxy, so the brokers behind a split Fetch are read one round trip at a time where a
 * direct consumer overlaps them. Asking each broker again as soon as it answered puts those round
 * trips under the client's own: the next Fetch finds the answer held ({@link ParkedPolls}).
 *
 * <p>The next Fetch asks the same partitions; a partition whose records went to the client at the
 * offset after its last complete batch (what every consumer fetches next once it has read them),
 * one whose records did not (none, or withheld by {@link FetchByteLimit}) at the same offset. Every
 * other field is the client's own, so an unchanged consumer asks exactly this and one that changed
 * anything (a seek, a pause, another limit) does not, and the answer is discarded, never used.
 */
final class ReadAhead {
    private ReadAhead() {
    }

    /**
     * The entries of a part's next Fetch, or empty when the part should not be read ahead: its
     * answer is not in, one of its partitions was answered by another part or with an error, or no
     * records of it reached the client.
     *
     * @param results the merged answer's partitions, after {@link FetchByteLimit}
     * @param byKey the part's own answer, by answer key
     */
    static Map<PartitionRef, FetchPartition> next(Part<FetchResponseData> part, Map<PartitionRef, FetchPartition> entries,
                                                  Map<PartitionRef, PartitionData> results,
                                                  Function<FetchResponseData, Map<PartitionRef.AnswerKey, PartitionData>> byKey) {
        if (!part.answer().isDone() || !part.answer().isSuccess()) {
            return Map.of();
        }
        Map<PartitionRef.AnswerKey, PartitionData> own = byKey.apply(part.answer().getNow().body());
        Map<PartitionRef, FetchPartition> next = new LinkedHashMap<>();
        boolean anyRecords = false;
        for (PartitionRef ref : part.partitions()) {
            PartitionData result = results.get(ref);
            // Identity: this very part's answer was merged for the partition, not a retry's.
            if (result == null || result != own.get(ref.answerKey()) || result.errorCode() != Errors.NONE.code()) {
                return Map.of();
            }
            FetchPartition entry = entries.get(ref);
            long after = RecordSets.sizeInBytes(result.records()) > 0
                    ? RecordSets.nextOffsetAfterCompleteBatches(result.records()) : -1;
            if (after > entry.fetchOffset()) {
                next.put(ref, entry.duplicate().setFetchOffset(after));
                anyRecords = true;
            } else {
                next.put(ref, entry);
            }
        }
        return anyRecords ? next : Map.of();
    }

    /** Brokers that got exactly one part: the ones a read-ahead may stand for. */
    static Map<Integer, Part<FetchResponseData>> onePartPerBroker(List<Part<FetchResponseData>> sent) {
        Map<Integer, Part<FetchResponseData>> byBroker = new HashMap<>();
        Map<Integer, Integer> counts = new HashMap<>();
        for (Part<FetchResponseData> part : sent) {
            byBroker.put(part.broker().id(), part);
            counts.merge(part.broker().id(), 1, Integer::sum);
        }
        counts.forEach((broker, count) -> {
            if (count > 1) {
                byBroker.remove(broker);
            }
        });
        return byBroker;
    }
}
