package org.kafscale.proxy.bench.soak;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.kafscale.proxy.bench.report.Timeline;

/**
 * Called once a second: what the soak's clients did in that second (records acknowledged per
 * producer, records given to each group, the producers' acknowledgement latency p50 and p99, the
 * other workloads' {@link Rate}s) and,
 * every 5 s, the replicas' processes (every 15 s after a collection, for the flatness check).
 */
final class TrafficSampler {
    /** A count that only grows (transactions committed, LFS bytes uploaded), charted as its rate per second. */
    record Rate(String title, String unit, String series, java.util.function.LongSupplier total) {
    }

    private final Timeline timeline;
    private final List<VerifiedProducer> producers;
    private final Map<String, GroupMember.Seen> groups;
    private final List<ProxyReplica> replicas;
    private final List<Rate> rates;
    private final Map<String, Long> last = new HashMap<>();
    private final long startNanos = System.nanoTime();
    private long ticks;

    TrafficSampler(Timeline timeline, List<VerifiedProducer> producers, Map<String, GroupMember.Seen> groups,
                   List<ProxyReplica> replicas, List<Rate> rates) {
        this.timeline = timeline;
        this.producers = producers;
        this.groups = groups;
        this.replicas = replicas;
        this.rates = List.copyOf(rates);
    }

    void sample() {
        ticks++;
        for (VerifiedProducer producer : producers) {
            long acked = producer.acked().size();
            timeline.record("Records acknowledged per second", "records/s", producer.name(),
                    acked - last.getOrDefault(producer.name(), 0L));
            last.put(producer.name(), acked);
            Histogram latency = producer.latencySinceLastCall();
            if (latency.getTotalCount() > 0) {
                timeline.record("Produce latency p99 (each second)", "ms", producer.name(),
                        latency.getValueAtPercentile(99) / 1000.0);
                timeline.record("Produce latency p50 (each second)", "ms", producer.name(),
                        latency.getValueAtPercentile(50) / 1000.0);
            }
        }
        groups.forEach((name, seen) -> {
            long count = seen.count.get();
            timeline.record("Records consumed per second", "records/s", name, count - last.getOrDefault(name, 0L));
            last.put(name, count);
        });
        for (Rate rate : rates) {
            String key = rate.title() + "/" + rate.series();
            long total = rate.total().getAsLong();
            timeline.record(rate.title(), rate.unit(), rate.series(), total - last.getOrDefault(key, 0L));
            last.put(key, total);
        }
        if (ticks % 5 == 0) {
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            replicas.forEach(r -> r.sample(seconds, timeline, ticks % 15 == 0));
        }
    }
}
