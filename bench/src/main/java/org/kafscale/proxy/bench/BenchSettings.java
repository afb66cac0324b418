package org.kafscale.proxy.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long and how often each workload runs, from system properties ({@code -Dbench.rounds=5}),
 * with defaults that keep the whole run well inside 15 minutes on 2 cores.
 */
record BenchSettings(int rounds, int warmupRounds, int produceSeconds, int recordBytes, int partitions, int latencyWarmupSeconds,
                     int latencySeconds, int latencyRounds, int e2eSeconds, double e2eRecordsPerSecond, int e2eRounds,
                     int lfsRounds, int lfsMib, List<String> proxyJvmOptions, List<String> workloads, Path resultsDir, Path document,
                     String commit, String command, String kroxyliciousClasspath) {

    static BenchSettings fromSystemProperties() {
        String jvmOptions = System.getProperty("bench.proxyJvmOptions", "").trim();
        return new BenchSettings(
                Integer.getInteger("bench.rounds", 7),
                Integer.getInteger("bench.warmupRounds", 2),
                Integer.getInteger("bench.produceSeconds", 5),
                1024,
                12,
                Integer.getInteger("bench.latencyWarmupSeconds", 2),
                Integer.getInteger("bench.latencySeconds", 8),
                Integer.getInteger("bench.latencyRounds", 5),
                Integer.getInteger("bench.e2eSeconds", 8),
                Double.parseDouble(System.getProperty("bench.e2eRecordsPerSecond", "100")),
                Integer.getInteger("bench.e2eRounds", 5),
                Integer.getInteger("bench.lfsRounds", 5),
                Integer.getInteger("bench.lfsMib", 64),
                jvmOptions.isEmpty() ? List.of() : Arrays.asList(jvmOptions.split("\\s+")),
                Arrays.asList(System.getProperty("bench.workloads", "throughput,tls,e2e,lfs").split(",")),
                Path.of(System.getProperty("bench.resultsDir", "bench/results")),
                Path.of(System.getProperty("bench.document", "docs/benchmarks.md")),
                System.getProperty("bench.commit", "unknown"),
                System.getProperty("bench.command", "scripts/bench.sh"),
                // Written by scripts/bench.sh from bench/kroxylicious; without it the run has no peer.
                System.getProperty("bench.kroxyliciousClasspath", "").trim());
    }

    /**
     * Whether a group of workloads runs: {@code throughput} (produce and consume throughput, the
     * proxy's cost, produce latency at half the produce rate), {@code tls} (throughput over TLS,
     * with {@code throughput} only), {@code e2e}, {@code lfs}. Choosing
     * some with {@code -Dbench.workloads=e2e} is for profiling; the report needs all of them.
     */
    boolean runs(String group) {
        return workloads.contains(group);
    }

    /** Whether this run has the peer proxy (Kroxylicious): scripts/bench.sh built its launcher. */
    boolean hasPeer() {
        return !kroxyliciousClasspath.isEmpty();
    }

    /** The settings a reader needs to interpret the table. */
    Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("rounds", rounds + " (latency " + latencyRounds + ", end-to-end " + e2eRounds + ", LFS " + lfsRounds
                + "), after " + warmupRounds + " unmeasured throughput rounds");
        out.put("records", recordBytes + " B");
        out.put("partitions", partitions + " (replication 3, acks=all)");
        out.put("produce run", "~" + produceSeconds + " s");
        out.put("latency run", latencyWarmupSeconds + " s warm-up + " + latencySeconds + " s");
        out.put("end-to-end", e2eRecordsPerSecond + " records/s, " + latencyWarmupSeconds + " s warm-up + " + e2eSeconds + " s");
        out.put("LFS payload", lfsMib + " MiB");
        if (!proxyJvmOptions.isEmpty()) {
            out.put("proxy JVM options", String.join(" ", proxyJvmOptions));
        }
        return out;
    }
}
