package org.kafscale.proxy.core.topology;

import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/** The two coordinator kinds a client can look up: a consumer group's, or a transactional id's. */
public enum CoordinatorKind {
    GROUP(CoordinatorType.GROUP),
    TRANSACTION(CoordinatorType.TRANSACTION);

    private final CoordinatorType kafkaType;

    CoordinatorKind(CoordinatorType kafkaType) {
        this.kafkaType = kafkaType;
    }

    public CoordinatorType kafkaType() {
        return kafkaType;
    }

    public static CoordinatorKind fromKeyType(byte keyType) {
        return CoordinatorType.forId(keyType) == CoordinatorType.TRANSACTION ? TRANSACTION : GROUP;
    }
}
