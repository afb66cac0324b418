package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/** The key types of FindCoordinator's {@code key_type} field that the proxy looks up. */
public final class CoordinatorKeyTypes {
    /** A consumer group's coordinator. */
    public static final byte GROUP = CoordinatorType.GROUP.id();
    /** A transactional id's coordinator. */
    public static final byte TRANSACTION = CoordinatorType.TRANSACTION.id();

    private CoordinatorKeyTypes() {
    }

    /**
     * Whether {@code keyType} names a transactional id.
     *
     * @throws RuntimeException (Kafka's InvalidRequestException) for a key type Kafka does not know
     */
    public static boolean isTransaction(byte keyType) {
        return CoordinatorType.forId(keyType) == CoordinatorType.TRANSACTION;
    }
}
