package org.kafscale.proxy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToDoubleFunction;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.report.Target;
import org.kafscale.proxy.bench.workload.ConsumeThroughput;
import org.kafscale.proxy.bench.workload.EndToEndLatency;
import org.kafscale.proxy.bench.workload.LatencyStats;
import org.kafscale.proxy.bench.workload.LfsUpload;
import org.kafscale.proxy.bench.workload.ProduceLatency;
import org.kafscale.proxy.bench.workload.ProduceThroughput;

/**
 * The workloads of issue 7, each run directly and through the proxy in alternating rounds, turned
 * into rows of the report. Throughput runs go through both advertise modes; the single-mode proxy's
 * CPU and allocations are read around its throughput runs (single mode is the default and the one
 * that splits and merges).
 */
final class Suite {
    static final String THROUGHPUT_TOPIC = "bench-throughput";
    static final String LATENCY_TOPIC = "bench-latency";
    static final String E2E_TOPIC = "bench-e2e";
    static final String LFS_TOPIC = "bench-lfs";
    private static final int LFS_WARMUP_UPLOADS = 2;
    private static final double MIB = 1024 * 1024;
    private static final int WARMUP_RECORDS = 50_000;
    private static final int MIN_RECORDS = 20_000;
    private static final int MAX_RECORDS = 400_000;

    private final BenchSettings settings;
    private final Route direct;
    private final Route single;
    private final Route brokers;
    private final ProxyCounters counters;
    private final LfsUpload lfs;
    private final List<Row> rows = new ArrayList<>();
    private final List<ProxyCounters.Cost> produceCosts = new ArrayList<>();
    private final List<ProxyCounters.Cost> consumeCosts = new ArrayList<>();
    private int records;
    private double directRecordsPerSecond;

    Suite(BenchSettings settings, Route direct, Route single, Route brokers, ProxyCounters counters, LfsUpload lfs) {
        this.settings = settings;
        this.direct = direct;
        this.single = single;
        this.brokers = brokers;
        this.counters = counters;
        this.lfs = lfs;
    }

    List<Row> run() throws Exception {
        if (settings.runs("throughput")) {
            warmUp();
            produceThroughput();
            consumeThroughput();
            proxyCost();
            produceLatency();
        }
        if (settings.runs("e2e")) {
            endToEnd();
        }
        if (settings.runs("lfs")) {
            lfsUpload();
        }
        return rows;
    }

    /**
     * Unmeasured runs on every route first: connections, page cache, and above all the proxies'
     * JIT (a profile of a shorter warm-up showed a third of the proxy's CPU in the C2 compiler).
     * The last direct run's rate sizes the measured runs, since a cold first run underestimates it
     * severalfold.
     */
    private void warmUp() {
        for (Route route : List.of(single, brokers, single, direct)) {
            ProduceThroughput.run(route.bootstrap(), THROUGHPUT_TOPIC, WARMUP_RECORDS, settings.recordBytes());
            ConsumeThroughput.run(route.bootstrap(), THROUGHPUT_TOPIC, WARMUP_RECORDS);
        }
        double rate = ProduceThroughput.run(direct.bootstrap(), THROUGHPUT_TOPIC, WARMUP_RECORDS, settings.recordBytes());
        records = (int) Math.max(MIN_RECORDS, Math.min(MAX_RECORDS, rate * settings.produceSeconds()));
        log("warm-up: direct %.0f records/s; measured runs produce %d records", rate, records);
    }

    private void produceThroughput() throws Exception {
        Map<Route, List<Double>> rates = Alternation.run(settings.rounds(), List.of(direct, single, brokers), (route, round) -> {
            ProxyCounters.Snapshot before = route == single ? counters.begin() : null;
            double rate = ProduceThroughput.run(route.bootstrap(), THROUGHPUT_TOPIC, records, settings.recordBytes());
            if (before != null) {
                produceCosts.add(before.costUntil(counters.end()));
            }
            log("produce round %d %s: %.0f records/s (%.1f MiB/s)", round, route.name(), rate,
                    rate * settings.recordBytes() / MIB);
            return rate;
        });
        directRecordsPerSecond = Row.median(rates.get(direct));
        for (Route proxied : List.of(single, brokers)) {
            rows.add(Row.compared("Produce throughput (1 KiB, acks=all, 12 partitions), " + proxied.name(), "throughput",
                    "MiB/s", mib(rates.get(direct)), mib(rates.get(proxied)), new Target.RatioAtLeast(0.97)));
        }
    }

    private void consumeThroughput() throws Exception {
        Map<Route, List<Double>> rates = Alternation.run(settings.rounds(), List.of(direct, single, brokers), (route, round) -> {
            ProxyCounters.Snapshot before = route == single ? counters.begin() : null;
            double rate = ConsumeThroughput.run(route.bootstrap(), THROUGHPUT_TOPIC, records);
            if (before != null) {
                consumeCosts.add(before.costUntil(counters.end()));
            }
            log("consume round %d %s: %.1f MiB/s", round, route.name(), rate / MIB);
            return rate / MIB;
        });
        for (Route proxied : List.of(single, brokers)) {
            rows.add(Row.compared("Consume throughput (same data, from the start), " + proxied.name(), "throughput",
                    "MiB/s", rates.get(direct), rates.get(proxied), new Target.RatioAtLeast(0.95)));
        }
    }

    private void proxyCost() {
        for (String workload : List.of("produce", "consume")) {
            List<ProxyCounters.Cost> costs = workload.equals("produce") ? produceCosts : consumeCosts;
            rows.add(Row.proxyOnly("Proxy CPU, " + workload + " (single mode), whole process", "CPU per MiB proxied",
                    "ms/MiB", each(costs, c -> c.cpuSecondsPerMib() * 1000), null));
            rows.add(Row.proxyOnly("Proxy CPU, " + workload + " (single mode), proxy threads (no JIT, no GC)",
                    "CPU per MiB proxied", "ms/MiB", each(costs, c -> c.threadCpuSecondsPerMib() * 1000), null));
        }
        rows.add(Row.proxyOnly("Proxy allocation, produce (single mode)", "heap allocated per MiB proxied", "KiB/MiB",
                each(produceCosts, c -> c.allocatedBytesPerMib() / 1024), new Target.AtMost(64)));
        rows.add(Row.proxyOnly("Proxy allocation, consume (single mode)", "heap allocated per MiB proxied", "KiB/MiB",
                each(consumeCosts, c -> c.allocatedBytesPerMib() / 1024), new Target.AtMost(64)));
    }

    private void produceLatency() throws Exception {
        double rate = directRecordsPerSecond / 2;
        log("produce latency at %.0f records/s (half the direct saturation rate)", rate);
        // One unmeasured run per proxy at this rate: the first proxied runs of a benchmark each held
        // one 60-270 ms stall (warm-up at a rate the throughput runs had not reached), later ones none.
        for (Route proxied : List.of(single, brokers)) {
            log("produce latency warm-up %s: %s", proxied.name(), produceLatencyRun(proxied, rate));
        }
        Map<Route, List<LatencyStats>> stats = Alternation.run(settings.latencyRounds(), List.of(direct, single, brokers),
                (route, round) -> {
                    LatencyStats s = produceLatencyRun(route, rate);
                    log("produce latency round %d %s: %s", round, route.name(), s);
                    return s;
                });
        for (Route proxied : List.of(single, brokers)) {
            String workload = String.format("Produce latency at %.0f records/s, open loop, %s", rate, proxied.name());
            rows.add(latencyRow(workload, "p50", stats.get(direct), stats.get(proxied), LatencyStats::p50, null));
            rows.add(latencyRow(workload, "p99", stats.get(direct), stats.get(proxied), LatencyStats::p99,
                    new Target.AddedAtMost(1.0)));
            rows.add(latencyRow(workload, "p99.9", stats.get(direct), stats.get(proxied), LatencyStats::p999, null));
        }
    }

    private LatencyStats produceLatencyRun(Route route, double rate) throws Exception {
        return ProduceLatency.run(route.bootstrap(), LATENCY_TOPIC, rate, Duration.ofSeconds(settings.latencyWarmupSeconds()),
                Duration.ofSeconds(settings.latencySeconds()), settings.recordBytes());
    }

    private void endToEnd() throws Exception {
        Map<Route, List<LatencyStats>> stats = Alternation.run(settings.e2eRounds(), List.of(direct, single, brokers),
                (route, round) -> {
                    LatencyStats s = EndToEndLatency.run(route.bootstrap(), E2E_TOPIC, settings.e2eRecordsPerSecond(),
                            Duration.ofSeconds(settings.latencyWarmupSeconds()), Duration.ofSeconds(settings.e2eSeconds()));
                    log("end-to-end round %d %s: %s", round, route.name(), s);
                    return s;
                });
        for (Route proxied : List.of(single, brokers)) {
            String workload = "End-to-end latency, " + proxied.name();
            rows.add(latencyRow(workload, "p50", stats.get(direct), stats.get(proxied), LatencyStats::p50, null));
            rows.add(latencyRow(workload, "p99", stats.get(direct), stats.get(proxied), LatencyStats::p99,
                    new Target.AddedAtMost(5.0)));
        }
    }

    private void lfsUpload() throws Exception {
        String workload = "LFS upload, " + settings.lfsMib() + " MiB: /lfs/produce vs S3 PUT";
        Target target = new Target.RatioAtLeast(0.8);
        Optional<String> unavailable = lfs.unavailable();
        if (unavailable.isPresent()) {
            log("LFS: %s", unavailable.get());
            rows.add(Row.unavailable(workload, "throughput", target, unavailable.get()));
            return;
        }
        byte[] payload = new byte[settings.lfsMib() * 1024 * 1024];
        ThreadLocalRandom.current().nextBytes(payload);
        Route s3 = new Route("S3 PUT", "", false);
        Route lfsRoute = new Route("/lfs/produce", "", true);
        // Unmeasured first uploads: the proxy's LFS path and the SDK are cold until then (JIT, class
        // loading, the S3 connection), which made the first measured round of each a third of the rest.
        for (int i = 0; i < LFS_WARMUP_UPLOADS; i++) {
            lfs.direct(payload);
            lfs.throughProxy(LFS_TOPIC, payload);
        }
        Map<Route, List<Double>> rates = Alternation.run(settings.lfsRounds(), List.of(s3, lfsRoute), (route, round) -> {
            double rate = route.proxied() ? lfs.throughProxy(LFS_TOPIC, payload) : lfs.direct(payload);
            log("LFS round %d %s: %.1f MiB/s", round, route.name(), rate / MIB);
            return rate / MIB;
        });
        rows.add(Row.compared(workload, "throughput", "MiB/s", rates.get(s3), rates.get(lfsRoute), target));
    }

    private static Row latencyRow(String workload, String percentile, List<LatencyStats> direct,
                                  List<LatencyStats> proxied, ToDoubleFunction<LatencyStats> pick, Target target) {
        return Row.compared(workload, percentile, "ms", direct.stream().map(pick::applyAsDouble).toList(),
                proxied.stream().map(pick::applyAsDouble).toList(), target);
    }

    private List<Double> mib(List<Double> recordsPerSecond) {
        return recordsPerSecond.stream().map(r -> r * settings.recordBytes() / MIB).toList();
    }

    private static List<Double> each(List<ProxyCounters.Cost> costs, ToDoubleFunction<ProxyCounters.Cost> pick) {
        return costs.stream().map(pick::applyAsDouble).toList();
    }

    static void log(String format, Object... args) {
        System.out.println("[bench] " + String.format(java.util.Locale.ROOT, format, args));
        System.out.flush();
    }
}
