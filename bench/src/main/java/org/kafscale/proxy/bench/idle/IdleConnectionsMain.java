package org.kafscale.proxy.bench.idle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.kafscale.proxy.bench.Environment;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.workload.LatencyStats;

/**
 * Issue 17's idle-connection measurement: one proxy (its own JVM, {@code -Xmx1g}, as the bench
 * runs it) holding {@code idle.connections} (10,000) client connections that each did what every
 * Kafka client does first (ApiVersions) and then went quiet. It reports what each held connection
 * costs the proxy (heap after a full collection, Netty's direct memory, the process's resident
 * memory, each as the difference to the proxy with none held, divided by the count) and how long a
 * new client waits to be accepted and answered meanwhile (connect plus ApiVersions, p99 at most
 * {@link #ACCEPT_P99_BOUND_MILLIS} ms). Run with {@code scripts/idle-connections.sh}; writes
 * {@code bench/results/idle-<date>-<commit>.json}, prints a table, and exits 1 when the bound is
 * missed.
 */
public final class IdleConnectionsMain {
    static final double ACCEPT_P99_BOUND_MILLIS = 50;
    private static final String CONNECTIONS_GAUGE = "kafscale_proxy_client_connections";
    private static final String NETTY_DIRECT = "kafscale_proxy_netty_direct_memory_bytes";
    private static final Duration CLUSTER_START = Duration.ofMinutes(3);
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final int BATCH = 1000;
    private static final int PROBES_PER_BATCH = 20;
    /** Connections left free beside the held ones, for the probes. */
    private static final int PROBE_ROOM = 100;
    private static final Pattern LIMIT_LINE = Pattern.compile("Client connections limited to (\\d+) in total");

    private IdleConnectionsMain() {
    }

    public static void main(String[] args) throws Exception {
        int connections = Integer.getInteger("idle.connections", 10_000);
        int probes = Integer.getInteger("idle.probes", 200);
        Path results = Path.of(System.getProperty("idle.resultsDir", "bench/results"));
        String commit = System.getProperty("bench.commit", "unknown");
        Path logs = results.resolve("logs");
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Map<String, Object> report = new LinkedHashMap<>();
        boolean met;
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of("-Xmx2g", "-XX:+UseG1GC"), ClusterMain.class.getName(),
                List.of(), Map.of(), logs.resolve("idle-cluster.log"), line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(CLUSTER_START).split(" ");
            S3Target s3 = new S3Target(java.net.URI.create(ready[2]), ready[3], ready[4], "bench-lfs");
            // Room for the held connections and the probes beside them, from one address (loopback).
            String cap = Integer.toString(connections + 1000);
            try (ProxyProcess proxy = ProxyProcess.start("single", ready[1], s3, List.of(),
                    Map.of("KAFSCALE_PROXY_MAX_CONNECTIONS", cap, "KAFSCALE_PROXY_MAX_CONNECTIONS_PER_IP", cap), logs);
                    ProxyCounters counters = ProxyCounters.attach(proxy)) {
                InetSocketAddress address = address(proxy.bootstrap());
                int limit = connectionLimit(logs.resolve("proxy-single.log"));
                if (connections + PROBE_ROOM > limit) {
                    // The proxy keeps two descriptors per client (its socket and one broker channel)
                    // below the process's limit; a machine whose hard limit is lower than that for
                    // the count asked holds what fits, and says so.
                    log("the proxy takes at most %d clients under this machine's file descriptor limit (%d); "
                            + "holding %d instead of %d", limit, fdLimit(), limit - PROBE_ROOM, connections);
                    report.put("requestedConnections", connections);
                    report.put("heldFewerBecause", "the proxy's connection limit under the process's file descriptor "
                            + "limit of " + fdLimit() + " is " + limit);
                    connections = limit - PROBE_ROOM;
                }
                probe(address, PROBES_PER_BATCH, LatencyStats.newHistogram()); // connections and JIT warm
                Memory none = Memory.read(proxy, counters);
                LatencyStats alone = probe(address, probes, LatencyStats.newHistogram());
                log("no connection held: %s; accept %s", none, alone);

                List<SocketChannel> held = new ArrayList<>(connections);
                Histogram growing = LatencyStats.newHistogram();
                long opening = System.nanoTime();
                try {
                    while (held.size() < connections) {
                        int batch = Math.min(BATCH, connections - held.size());
                        for (int i = 0; i < batch; i++) {
                            held.add(ApiVersionsExchange.open(address));
                        }
                        probe(address, PROBES_PER_BATCH, growing);
                        log("%d connections held", held.size());
                    }
                    double openSeconds = (System.nanoTime() - opening) / 1e9;
                    awaitGauge(counters, CONNECTIONS_GAUGE, connections);
                    Memory full = Memory.read(proxy, counters);
                    LatencyStats whileHeld = probe(address, probes, LatencyStats.newHistogram());
                    double stillHeld = counters.gauge(CONNECTIONS_GAUGE).orElse(-1);
                    log("%d held: %s; accept %s; %.0f still open after the probes", connections, full, whileHeld,
                            stillHeld);
                    met = whileHeld.p99() <= ACCEPT_P99_BOUND_MILLIS && stillHeld >= connections;

                    report.put("command", "scripts/idle-connections.sh");
                    report.put("date", started.toString());
                    report.put("commit", commit);
                    report.put("machine", Environment.describe());
                    report.put("connections", connections);
                    report.put("secondsToOpen", openSeconds);
                    report.put("perConnection", Map.of(
                            "heapBytes", (full.heap - none.heap) / (double) connections,
                            "nettyDirectBytes", (full.nettyDirect - none.nettyDirect) / (double) connections,
                            "residentBytes", (full.resident - none.resident) / (double) connections));
                    report.put("memoryWithNone", none.asMap());
                    report.put("memoryWithAll", full.asMap());
                    report.put("acceptMillisAlone", alone);
                    report.put("acceptMillisWhileOpening", LatencyStats.of(growing));
                    report.put("acceptMillisWhileHeld", whileHeld);
                    report.put("acceptP99BoundMillis", ACCEPT_P99_BOUND_MILLIS);
                    report.put("met", met);
                } finally {
                    for (SocketChannel channel : held) {
                        channel.close();
                    }
                }
            }
        }
        write(report, results, started, commit);
        System.exit(met ? 0 : 1);
    }

    /** New clients, one after another: connect, ApiVersions, close; each timed whole. */
    private static LatencyStats probe(InetSocketAddress address, int count, Histogram into) throws IOException {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            try (SocketChannel channel = ApiVersionsExchange.open(address)) {
                into.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
            }
        }
        return LatencyStats.of(into);
    }

    private static void awaitGauge(ProxyCounters counters, String gauge, double atLeast) throws Exception {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (counters.gauge(gauge).orElse(-1) < atLeast) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(gauge + " did not reach " + atLeast + " within " + SETTLE);
            }
            Thread.sleep(100);
        }
    }

    /** What the proxy process holds at one moment, in bytes. */
    private record Memory(long heap, long nettyDirect, long resident) {
        static Memory read(ProxyProcess proxy, ProxyCounters counters) throws Exception {
            long heap = counters.heapUsedAfterGc();
            long direct = (long) counters.gauge(NETTY_DIRECT).orElse(-1);
            return new Memory(heap, direct, residentBytes(proxy.pid()));
        }

        Map<String, Long> asMap() {
            return Map.of("heapAfterGc", heap, "nettyDirect", nettyDirect, "resident", resident);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "heap %.1f MiB, Netty direct %.1f MiB, resident %.1f MiB",
                    heap / 1048576.0, nettyDirect / 1048576.0, resident / 1048576.0);
        }
    }

    /** The limit the proxy applies, as it logs it at start ({@code KafkaProxyServer}); the log is appended to, so the last. */
    private static int connectionLimit(Path proxyLog) throws IOException {
        int limit = -1;
        for (String line : Files.readAllLines(proxyLog)) {
            Matcher matcher = LIMIT_LINE.matcher(line);
            if (matcher.find()) {
                limit = Integer.parseInt(matcher.group(1));
            }
        }
        if (limit < 0) {
            throw new IllegalStateException("no connection limit line in " + proxyLog);
        }
        return limit;
    }

    private static long fdLimit() {
        return ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getMaxFileDescriptorCount();
    }

    /** VmRSS of a process, from /proc (Linux). */
    private static long residentBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return -1;
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    private static void write(Map<String, Object> report, Path results, Instant started, String commit)
            throws IOException {
        String stamp = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC).format(started);
        Files.createDirectories(results);
        Path json = results.resolve("idle-" + stamp + "-" + commit + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
        log("wrote %s", json);
    }

    private static void log(String format, Object... args) {
        System.out.println("[idle] " + String.format(Locale.ROOT, format, args));
        System.out.flush();
    }
}
