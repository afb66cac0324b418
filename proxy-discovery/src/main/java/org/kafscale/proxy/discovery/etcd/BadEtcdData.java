package org.kafscale.proxy.discovery.etcd;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd values that were ignored: each is logged once (per key and value), as every read sees it
 * again until someone fixes it, and every sighting is counted.
 */
final class BadEtcdData {
    private static final Logger LOGGER = LoggerFactory.getLogger(BadEtcdData.class);

    private final MeterRegistry metrics;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    BadEtcdData(MeterRegistry metrics) {
        this.metrics = metrics;
    }

    /**
     * @param kind the metric's tag: {@code snapshot}, {@code lease_key} or {@code lease_owner}
     * @param where the key (and value or revision) at fault
     * @param problem what is wrong and what the proxy does instead
     */
    void report(String kind, String where, String problem) {
        Counter.builder("kafscale_proxy_etcd_bad_data_total").tag("kind", kind)
                .description("etcd values that were ignored because they did not parse or named unknown brokers")
                .register(metrics).increment();
        if (reported.add(kind + " " + where)) {
            LOGGER.warn("etcd {} {} {}", kind.replace('_', ' '), where, problem);
        }
    }
}
