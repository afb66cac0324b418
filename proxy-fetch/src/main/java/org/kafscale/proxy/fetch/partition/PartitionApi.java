package org.kafscale.proxy.fetch.partition;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.fetch.routing.PartitionRef;

/**
 * How one partition-keyed API splits and merges, in terms of kafka-clients' generated classes.
 * {@link PartitionFanOut} does the routing, retries and encoding; an adapter only knows its API's
 * shape.
 *
 * @param <Q> the request data
 * @param <R> the response data
 * @param <P> one partition's result in the response
 */
interface PartitionApi<Q extends ApiMessage, R extends ApiMessage, P> {

    /** The request's partitions, in request order, each with the topic as the request names it. */
    List<PartitionRef> partitions(Q request, org.kafscale.proxy.core.topology.TopologySnapshot snapshot);

    /** A copy of the request's top-level fields with only {@code parts}. */
    Q subRequest(Q request, List<PartitionRef> parts);

    R parseResponse(org.apache.kafka.common.protocol.ByteBufferAccessor body, short version);

    /** The partition results of one broker's answer, by {@link PartitionRef#answerKey()}. */
    Map<String, P> results(R response);

    short errorCode(P result);

    int throttleTimeMs(R response);

    /** A result the proxy makes up for a partition: the error and Kafka's defaults (-1). */
    P synthetic(PartitionRef ref, Errors error);

    /** The merged answer: every requested partition in request order, from {@code results}. */
    R merge(Q request, Map<PartitionRef, P> results, int throttleTimeMs);
}
