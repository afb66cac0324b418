package org.kafscale.proxy.core.quota;

import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Told what the quotas count and throttle, for metrics. Its labels are bounded: virtual clusters
 * and principals are those of the gateway file. Called on event loops; must not block.
 */
public interface QuotaObserver {
    QuotaObserver NONE = new QuotaObserver() {
    };

    /** {@code bytes} were counted against the quotas of {@code principal} in {@code virtualCluster}. */
    default void counted(String virtualCluster, KafkaPrincipal principal, QuotaKind kind, long bytes) {
    }

    /** A client of {@code principal} was throttled for {@code millis}, past a quota of {@code kind}. */
    default void throttled(String virtualCluster, KafkaPrincipal principal, QuotaKind kind, long millis) {
    }
}
