package org.kafscale.proxy.bench;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.workload.ConsumeThroughput;
import org.kafscale.proxy.bench.workload.ProduceThroughput;

/**
 * Two builds of the proxy in one run: this tree's and a baseline's (another commit, built by
 * {@code scripts/compare-builds.sh}), each in its own JVM in the same advertise mode, with direct
 * Kafka beside them, through the same alternating produce and consume rounds as the bench.
 *
 * <p>Why it exists: the host under these runs changes speed by up to two times between runs, and
 * one bench run's ratios move by up to 0.2 for the same build, so two bench runs cannot tell
 * whether a commit made a route faster or slower. Side by side in one run, both builds meet the
 * same host. Prints, per workload, the median of per-round ratios of each build to direct and of
 * this build to the baseline, and each build's CPU per MiB (docs/benchmarks.md, "Comparing two
 * builds").
 *
 * <p>Settings (system properties): {@code compare.baselineClasspath} (required: the baseline's
 * bench classpath, whose proxy jars it runs), {@code compare.baseline} (its name in the output),
 * {@code compare.mode} ({@code single}), {@code compare.rounds} (9), {@code compare.warmupRounds}
 * (2), {@code compare.records} (200,000 records of 1 KiB per run), {@code compare.lfs} ({@code true}:
 * both proxies run the LFS rewrite, which reads every Produce; {@code false} turns it off),
 * {@code compare.dir} (logs).
 */
public final class BuildComparisonMain {
    private static final String TOPIC = "compare";
    private static final int RECORD_BYTES = 1024;
    private static final double MIB = 1024.0 * 1024.0;
    private static final String READ_AHEADS = "kafscale_proxy_fetch_read_aheads_total";

    private BuildComparisonMain() {
    }

    public static void main(String[] args) throws Exception {
        String baselineClasspath = System.getProperty("compare.baselineClasspath", "");
        if (baselineClasspath.isBlank()) {
            throw new IllegalArgumentException("compare.baselineClasspath is not set: run scripts/compare-builds.sh <commit>");
        }
        String baselineName = System.getProperty("compare.baseline", "baseline");
        String mode = System.getProperty("compare.mode", "single");
        int rounds = Integer.getInteger("compare.rounds", 9);
        int warmupRounds = Integer.getInteger("compare.warmupRounds", 2);
        int records = Integer.getInteger("compare.records", 200_000);
        // With LFS on (the bench's default) every Produce goes through its rewriter, decoded.
        Map<String, String> proxySettings = Boolean.parseBoolean(System.getProperty("compare.lfs", "true"))
                ? Map.of() : Map.of("KAFSCALE_PROXY_LFS_ENABLED", "false");
        Path dir = Path.of(System.getProperty("compare.dir", "bench/results/logs/compare")).toAbsolutePath();
        Files.createDirectories(dir);
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of("-Xmx3g", "-XX:+UseG1GC"), ClusterMain.class.getName(),
                List.of(), Map.of(), dir.resolve("cluster.log"), line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(Duration.ofMinutes(3)).split(" ");
            String bootstrap = ready[1];
            S3Target s3 = new S3Target(URI.create(ready[2]), ready[3], ready[4], "compare-lfs");
            createTopic(bootstrap, records);
            try (ProxyProcess current = ProxyProcess.start(mode, bootstrap, s3, List.of(), proxySettings,
                         ProxyProcess.Ports.free(), "proxy-current", dir);
                 ProxyProcess baseline = ProxyProcess.start(mode, bootstrap, s3, List.of(), proxySettings,
                         ProxyProcess.Ports.free(), "proxy-baseline", dir, baselineClasspath);
                 ProxyCounters currentCounters = ProxyCounters.attach(current);
                 ProxyCounters baselineCounters = ProxyCounters.attach(baseline)) {
                Route direct = new Route("direct", bootstrap, false);
                Route ours = new Route("this build", current.bootstrap(), true);
                Route theirs = new Route(baselineName, baseline.bootstrap(), true);
                List<Route> routes = List.of(direct, ours, theirs);
                Map<Route, ProxyCounters> counters = Map.of(ours, currentCounters, theirs, baselineCounters);
                log("%s mode; %d records of %d B per run, %d rounds after %d unmeasured", mode, records, RECORD_BYTES,
                        rounds, warmupRounds);
                Alternation.run(warmupRounds, routes, (route, round) -> {
                    ProduceThroughput.run(route.bootstrap(), TOPIC, records, RECORD_BYTES);
                    return ConsumeThroughput.run(route.bootstrap(), TOPIC, records);
                });
                Workload produce = Workload.measure("produce", rounds, routes, counters,
                        route -> ProduceThroughput.run(route.bootstrap(), TOPIC, records, RECORD_BYTES) * RECORD_BYTES / MIB);
                Workload consume = Workload.measure("consume", rounds, routes, counters,
                        route -> ConsumeThroughput.run(route.bootstrap(), TOPIC, records) / MIB);
                for (Workload workload : List.of(produce, consume)) {
                    workload.report(direct, ours, theirs);
                }
                log("read-aheads, this build: %s; %s: %s", currentCounters.series(READ_AHEADS), baselineName,
                        baselineCounters.series(READ_AHEADS));
            }
        }
        System.exit(0);
    }

    /** Byte-bounded like the bench's topic, with room for one run's records in every partition's share. */
    private static void createTopic(String bootstrap, int records) throws Exception {
        long perPartition = Math.max(64L * 1024 * 1024, 2L * records * RECORD_BYTES / 12);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 12, (short) 3).configs(Map.of(
                    "retention.bytes", Long.toString(perPartition),
                    "segment.bytes", Integer.toString(16 * 1024 * 1024))))).all().get();
        }
    }

    interface RouteRun {
        double mibPerSecond(Route route) throws Exception;
    }

    /** One workload's rounds: MiB/s by route, and each proxy's CPU per MiB of its own threads. */
    private record Workload(String name, Map<Route, List<Double>> rates, Map<Route, List<Double>> cpuMsPerMib) {
        static Workload measure(String name, int rounds, List<Route> routes, Map<Route, ProxyCounters> counters,
                                RouteRun run) throws Exception {
            Map<Route, List<Double>> cpu = new LinkedHashMap<>();
            Map<Route, List<Double>> rates = Alternation.run(rounds, routes, (route, round) -> {
                ProxyCounters proxy = counters.get(route);
                Callable<Double> once = () -> run.mibPerSecond(route);
                double rate;
                if (proxy == null) {
                    rate = once.call();
                } else {
                    ProxyCounters.Costed<Double> costed = proxy.during(once);
                    cpu.computeIfAbsent(route, r -> new ArrayList<>()).add(costed.cost().threadCpuSecondsPerMib() * 1000);
                    rate = costed.result();
                }
                log("%s round %d %s: %.1f MiB/s", name, round, route.name(), rate);
                return rate;
            });
            return new Workload(name, rates, cpu);
        }

        void report(Route direct, Route ours, Route theirs) {
            log("%s: this build/direct %.3f, %s/direct %.3f, this build/%s %.3f (medians of per-round ratios); "
                            + "MiB/s median direct %.1f, this build %.1f, %s %.1f; proxy threads' CPU ms/MiB this build %.3f, %s %.3f",
                    name, ratio(ours, direct), theirs.name(), ratio(theirs, direct), theirs.name(), ratio(ours, theirs),
                    Row.median(rates.get(direct)), Row.median(rates.get(ours)), theirs.name(),
                    Row.median(rates.get(theirs)), Row.median(cpuMsPerMib.get(ours)), theirs.name(),
                    Row.median(cpuMsPerMib.get(theirs)));
        }

        private double ratio(Route over, Route under) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < rates.get(over).size(); i++) {
                ratios.add(rates.get(over).get(i) / rates.get(under).get(i));
            }
            return Row.median(ratios);
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[compare] " + format + "%n", args);
    }
}
