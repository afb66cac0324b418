package org.kafscale.proxy.routing.fetch;

import java.util.ArrayList;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.kafscale.proxy.core.codec.RecordSets;

/**
 * A Fetch's {@code max_bytes} applied to an answer merged from several brokers, as one broker
 * applies it to its own answer.
 *
 * <p>Each broker's part carries the client's whole {@code max_bytes} (the proxy cannot know in
 * advance which broker has data), so every part honours it on its own and the merged answer could
 * be as many times larger as brokers contribute; librdkafka refuses such an answer outright
 * ({@code Invalid response size}). Records are kept in request order while they fit; the first
 * non-empty partition is always kept, as Kafka does (KIP-74: its broker returned more than the
 * limit only for a single batch larger than it). A partition that does not fit keeps its offsets
 * and loses its records, never part of a batch: every part is a sessionless full fetch, so the
 * client simply fetches it again from the same offset. Nothing is copied; records stay views of
 * their brokers' frames.
 */
final class FetchByteLimit {
    private final long maxBytes;
    private long kept;

    /** @param maxBytes the request's {@code max_bytes} (Integer.MAX_VALUE below v3, where it has none) */
    FetchByteLimit(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Offers the next partition in request order; its records are dropped when they no longer fit. */
    void admit(PartitionData partition) {
        int size = RecordSets.sizeInBytes(partition.records());
        if (size == 0) {
            return;
        }
        if (kept == 0 || kept + size <= maxBytes) {
            kept += size;
            return;
        }
        withhold(partition);
    }

    /**
     * The records go; high watermark, last stable offset and log start stay (they are true whatever
     * was returned), and the aborted transactions, which describe the dropped records, go with them.
     */
    private static void withhold(PartitionData partition) {
        partition.setRecords(RecordSets.empty());
        if (partition.abortedTransactions() != null) {
            partition.setAbortedTransactions(new ArrayList<>());
        }
    }
}
