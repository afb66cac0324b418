package org.kafscale.proxy.core.hooks;

import io.netty.util.concurrent.Future;
import java.util.Map;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.topology.PartitionRef;

/**
 * Changes the records of a Produce before it is split by owner (the LFS module's Kafka-side
 * rewrite, spec §4.10). {@link ProduceFanOut} asks it once per Produce; the default rewrites
 * nothing.
 */
public interface ProduceRewriter {
    /** Rewrites nothing. */
    ProduceRewriter NONE = (context, partitions) -> null;

    /**
     * Looks at the partitions of one Produce and, when some need rewriting, replaces their
     * records in place ({@link PartitionProduceData#setRecords}).
     *
     * @param context the client connection; the future completes on its event loop
     * @param partitions every partition of the request, with its topic name resolved
     * @return {@code null} when nothing is rewritten (the request goes on as the client sent it),
     *         else a future of the outcome, completed once every record is rewritten or refused
     */
    Future<Outcome> rewrite(ConnectionContext context, Map<PartitionRef, PartitionProduceData> partitions);

    /** What a rewrite did, and what it must hear about the partitions it sent. */
    interface Outcome {
        /** Partitions not to send, with the error their answer carries. */
        Map<PartitionRef, Errors> refused();

        /**
         * Called once, on the event loop, with the result of every partition that was sent
         * ({@link Errors#NONE} when stored); a partition missing from the map has an unknown fate.
         */
        void settled(Map<PartitionRef, Errors> results);
    }
}
