package org.kafscale.proxy.core.backend;

import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.protocol.Errors;

/**
 * What a broker's error code says about the route that took a request there, read from Kafka's
 * own exception hierarchy rather than from lists of codes.
 *
 * <p>Leader class: the errors whose exception is an {@link InvalidMetadataException} (the ones
 * after which Kafka's clients refresh metadata: NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE,
 * FENCED_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, KAFKA_STORAGE_ERROR, ...),
 * plus UNKNOWN_LEADER_EPOCH, which Kafka files as merely retriable but which also means "this
 * broker's view of the partition is not the one you routed on". Including UNKNOWN_TOPIC_OR_PARTITION
 * and KAFKA_STORAGE_ERROR is deliberate: a broker that does not host a partition (yet, or any
 * more, or on a failed disk) is exactly a stale route, and the retry goes to another broker.
 */
public final class BrokerErrors {
    private BrokerErrors() {
    }

    /** The partition's route is stale: drop it and try the owner the topology names next. */
    public static boolean isLeaderClass(short errorCode) {
        return isLeaderClass(Errors.forCode(errorCode));
    }

    public static boolean isLeaderClass(Errors error) {
        return error != Errors.NONE
                && (error.exception() instanceof InvalidMetadataException || error == Errors.UNKNOWN_LEADER_EPOCH);
    }
}
