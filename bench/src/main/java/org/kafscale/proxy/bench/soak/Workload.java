package org.kafscale.proxy.bench.soak;

/**
 * Something the soak keeps doing through a proxy replica whose progress after each chaos event is
 * watched: the recovery checks wait for every workload to succeed again once the event is over.
 */
interface Workload {
    /** Names it in the log and in the recovery verdicts ("producer-proxy-etcd", "admin describeCluster"). */
    String name();

    /** {@link System#nanoTime()} of its last success. */
    long lastSuccessNanos();
}
