package org.kafscale.proxy.bench.workload;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Bytes the throughput workloads' clients sent and received, by bootstrap address (that is, by
 * route), as the clients themselves count them ({@code outgoing-byte-total} and
 * {@code incoming-byte-total} over all their connections), added when each client closes.
 *
 * <p>Every proxy's cost per MiB is per MiB counted here, one meter for ours and the peer:
 * Kroxylicious does not count the frames it passes through undecoded (its payload-size metric
 * covers decoded frames only). Not counted: answers a proxy sent that the client never read
 * (the Fetch answers still in flight when a consumer closes).
 */
public final class ClientTraffic {
    private static final Set<String> CLIENT_GROUPS = Set.of("producer-metrics", "consumer-metrics");
    private static final Set<String> BYTE_TOTALS = Set.of("outgoing-byte-total", "incoming-byte-total");
    private static final Map<String, LongAdder> BY_BOOTSTRAP = new ConcurrentHashMap<>();

    private ClientTraffic() {
    }

    /** Bytes in and out of every closed throughput client that was given {@code bootstrap}. */
    public static long total(String bootstrap) {
        LongAdder bytes = BY_BOOTSTRAP.get(bootstrap);
        return bytes == null ? 0 : bytes.sum();
    }

    /** Adds what a client moved; call it once per client, just before closing it. */
    static void add(String bootstrap, Map<MetricName, ? extends Metric> metrics) {
        long bytes = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : metrics.entrySet()) {
            MetricName name = metric.getKey();
            if (CLIENT_GROUPS.contains(name.group()) && BYTE_TOTALS.contains(name.name())
                    && metric.getValue().metricValue() instanceof Double value) {
                bytes += value.longValue();
            }
        }
        BY_BOOTSTRAP.computeIfAbsent(bootstrap, b -> new LongAdder()).add(bytes);
    }
}
