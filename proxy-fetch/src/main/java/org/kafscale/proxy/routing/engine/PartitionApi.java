package org.kafscale.proxy.routing.engine;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.core.backend.Answer;

/**
 * One partition-keyed API as {@link PartitionExchange} needs to know it: how its requests split
 * and its answers merge (in kafka-clients' generated classes), and the few decisions in which APIs
 * differ. The defaults are those of a read that is safe to repeat (ListOffsets,
 * OffsetForLeaderEpoch): retry leader-class partitions on their new owner and failed parts on a
 * fresh channel, wait for every part, pass a single owner's answer through unchanged.
 *
 * <p>An adapter whose decisions depend on the request (Produce: producer ids, the rewrite; Fetch:
 * max wait, the connection's parked polls) is made per request; the others are shared.
 *
 * @param <Q> the request data
 * @param <E> one partition's entry in the request
 * @param <R> the response data
 * @param <P> one partition's result in the response
 */
public interface PartitionApi<Q extends ApiMessage, E, R extends ApiMessage, P> {

    ApiKeys api();

    // ---- shape ----

    /** Every partition of the request with its entry, in request order. */
    Map<PartitionRef, E> partitions(Q request, TopologySnapshot snapshot);

    /** A copy of the request's top-level fields carrying only {@code parts}, each with its entry. */
    Q subRequest(Q request, List<PartitionRef> parts, Map<PartitionRef, E> entries);

    R parseResponse(ByteBufferAccessor body, short version);

    /** The partition results of one broker's answer, by {@link PartitionRef#answerKey()}. */
    Map<PartitionRef.AnswerKey, P> results(R response);

    short errorCode(P result);

    int throttleTimeMs(R response);

    /** A result the proxy makes up for a partition: the error and Kafka's defaults (-1), never 0. */
    P synthetic(PartitionRef ref, Errors error);

    /** The merged answer: every requested partition in request order, each from {@code results}. */
    R merge(Q request, Map<PartitionRef, E> entries, Map<PartitionRef, P> results, int throttleTimeMs);

    // ---- decisions, defaulted for a read that is safe to repeat ----

    /** Attempts per partition, the first included. */
    default int maxAttempts() {
        return RetryPolicy.MAX_ATTEMPTS;
    }

    /** Whether a part whose exchange failed may be sent again (on a fresh channel). */
    default boolean mayResend(Throwable failure) {
        return RetryPolicy.mayResend(failure, false);
    }

    /** The error a partition carries when its part failed and is not (or no more) retried. */
    default Errors connectionError() {
        return Errors.REQUEST_TIMED_OUT;
    }

    /** Whether a partition with no owner now waits for the next attempt (the route may come back). */
    default boolean retriesUnroutable() {
        return true;
    }

    /** Whether a leader-class refusal counts as a retry in metrics (not when it goes back to the client). */
    default boolean countsLeaderRetries() {
        return maxAttempts() > 1;
    }

    /** Whether one owner's answer may go back as the broker sent it. */
    default boolean mayPassThrough() {
        return true;
    }

    /** Whether, with one owner, the client's own bytes may go out (else the request is re-encoded). */
    default boolean sendsClientBytes(Q request) {
        return true;
    }

    /** Whether this answer, every partition settled, may go back unchanged. */
    default boolean passesThrough(R response) {
        return true;
    }

    /** A result as it joins the merged answer (a broker's hint for the client is dropped, for one). */
    default P accepted(P result) {
        return result;
    }

    /**
     * A partition that ran out of attempts: the synthetic result, which may carry what the last
     * broker that refused it said (a KIP-951 leader hint).
     *
     * @param lastRefusal the last leader-class result for the partition, or null
     */
    default P failed(PartitionRef ref, Errors error, P lastRefusal) {
        return synthetic(ref, error);
    }

    /** A partition still unanswered when the {@link #completion} answers before every part is in. */
    default P unanswered(PartitionRef ref, Errors lastError, P lastRefusal) {
        return failed(ref, lastError, lastRefusal);
    }

    /** Sends one part; the default is the connection's ordered channel to the part's broker. */
    default Future<Answer<R>> send(Part<R> part, Supplier<ByteBuf> frame, Sender<R> sender) {
        return sender.exchange(part.broker(), frame.get(), 0, false);
    }

    /** When the client is answered and what becomes of parts still out then; the default waits for every part. */
    default CompletionPolicy<R> completion() {
        return CompletionPolicy.everyPart();
    }

    /** Sends one frame to one broker for the exchange and parses the answer with this API. */
    @FunctionalInterface
    interface Sender<R> {
        /**
         * @param frame the bytes to send; ownership passes here
         * @param extraWaitMillis how long the broker may legitimately hold the request (a Fetch's max wait)
         * @param idleChannel use a channel with nothing in flight
         */
        Future<Answer<R>> exchange(org.kafscale.proxy.core.topology.BrokerEndpoint broker, ByteBuf frame,
                                   long extraWaitMillis, boolean idleChannel);
    }
}
