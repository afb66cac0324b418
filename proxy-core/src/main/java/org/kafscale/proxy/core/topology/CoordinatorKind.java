package org.kafscale.proxy.core.topology;

import org.kafscale.proxy.core.codec.CoordinatorKeyTypes;

/** The two coordinator kinds a client can look up: a consumer group's, or a transactional id's. */
public enum CoordinatorKind {
    GROUP(CoordinatorKeyTypes.GROUP),
    TRANSACTION(CoordinatorKeyTypes.TRANSACTION);

    private final byte keyType;

    CoordinatorKind(byte keyType) {
        this.keyType = keyType;
    }

    /** FindCoordinator's {@code key_type} for this kind. */
    public byte keyType() {
        return keyType;
    }

    /**
     * @throws RuntimeException (Kafka's InvalidRequestException) for a key type Kafka does not know
     */
    public static CoordinatorKind fromKeyType(byte keyType) {
        return CoordinatorKeyTypes.isTransaction(keyType) ? TRANSACTION : GROUP;
    }
}
