package org.kafscale.proxy.app.e2e;

/**
 * Which broker the same request is sent to directly, to get the answer the proxy's must match:
 * the broker a Kafka client would have picked itself.
 */
sealed interface DirectTarget {
    /** Any broker answers the same (admin APIs a broker forwards to the controller, cluster-wide reads). */
    record AnyBroker() implements DirectTarget {
    }

    /** The coordinator of a group (FindCoordinator key type 0), as a direct FindCoordinator names it. */
    record GroupCoordinator(String group) implements DirectTarget {
    }

    /** The coordinator of a transactional id (FindCoordinator key type 1). */
    record TransactionCoordinator(String transactionalId) implements DirectTarget {
    }

    /** The leader of one partition. */
    record Leader(String topic, int partition) implements DirectTarget {
    }

    /** One named broker, for per-broker resources. */
    record Broker(int id) implements DirectTarget {
    }

    static DirectTarget anyBroker() {
        return new AnyBroker();
    }
}
