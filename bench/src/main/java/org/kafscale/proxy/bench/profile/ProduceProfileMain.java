package org.kafscale.proxy.bench.profile;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.workload.ProduceLatency;

/**
 * A produce profile of one proxy that a loaded machine does not distort: a producer at a fixed
 * rate (the bench's producer, open loop) through the proxy in one advertise mode, warm first, then
 * a measured stretch with a JFR recording ({@code settings=profile}) started and stopped through
 * {@code jcmd} around it. Prints the proxy's heap allocation and thread CPU per MiB and per
 * Produce request, and those of its event loops alone per request: what the proxy does per
 * request does not depend on how fast the machine happens to be, so runs before and after a
 * change compare even while others build (docs/benchmarks.md, "Produce profile").
 *
 * <p>Settings (system properties): {@code profile.mode} (default {@code ports}),
 * {@code profile.recordsPerSecond} (4096: 4 MiB/s of 1 KiB records, low enough that a producer
 * on a loaded 2-core machine roughly keeps up, so requests keep their size),
 * {@code profile.warmupSeconds} (30), {@code profile.seconds} (60), {@code profile.dir} (where the
 * logs and {@code produce-<mode>.jfr} go; default {@code bench/results/logs/profile}).
 */
public final class ProduceProfileMain {
    private static final String TOPIC = "profile";
    private static final int RECORD_BYTES = 1024;
    /** The names of the proxy's Kafka event loops (NettyTransport). */
    private static final String EVENT_LOOPS = "kafka-io-";

    private ProduceProfileMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = System.getProperty("profile.mode", "ports");
        double rate = Double.parseDouble(System.getProperty("profile.recordsPerSecond", "4096"));
        Duration warmup = Duration.ofSeconds(Integer.getInteger("profile.warmupSeconds", 30));
        Duration measured = Duration.ofSeconds(Integer.getInteger("profile.seconds", 60));
        Path dir = Path.of(System.getProperty("profile.dir", "bench/results/logs/profile")).toAbsolutePath();
        Files.createDirectories(dir);
        Path recording = dir.resolve("produce-" + mode + ".jfr");
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of("-Xmx3g", "-XX:+UseG1GC"), ClusterMain.class.getName(),
                List.of(), Map.of(), dir.resolve("cluster.log"), line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(Duration.ofMinutes(3)).split(" ");
            String bootstrap = ready[1];
            S3Target s3 = new S3Target(URI.create(ready[2]), ready[3], ready[4], "profile-lfs");
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 12, (short) 3).configs(Map.of(
                        "retention.bytes", String.valueOf(256L * 1024 * 1024),
                        "segment.bytes", String.valueOf(32 * 1024 * 1024))))).all().get();
            }
            try (ProxyProcess proxy = ProxyProcess.start(mode, bootstrap, s3, List.of(), dir);
                 ProxyCounters counters = ProxyCounters.attach(proxy)) {
                log("warming %s mode for %s at %.0f records/s", mode, warmup, rate);
                ProduceLatency.run(proxy.bootstrap(), TOPIC, rate, Duration.ZERO, warmup, RECORD_BYTES);
                jcmd(proxy.pid(), "JFR.start", "name=produce", "settings=profile", "filename=" + recording);
                double requestsBefore = produceRequests(proxy);
                ProxyCounters.ThreadTotals loopsBefore = counters.threadTotals(EVENT_LOOPS);
                ProxyCounters.Snapshot before = counters.begin();
                var latency = ProduceLatency.run(proxy.bootstrap(), TOPIC, rate, Duration.ZERO, measured, RECORD_BYTES);
                ProxyCounters.Snapshot after = counters.end();
                ProxyCounters.ThreadTotals loopsAfter = counters.threadTotals(EVENT_LOOPS);
                double requests = produceRequests(proxy) - requestsBefore;
                jcmd(proxy.pid(), "JFR.stop", "name=produce");
                // Divided by the proxy's own count of client bytes (within 1 % of the clients' on
                // produce, docs/benchmarks.md): this producer is the latency workload's, which
                // does not report its traffic.
                double mib = (after.ownBytes() - before.ownBytes()) / (1024.0 * 1024.0);
                // Per request too: a producer that falls behind its rate sends fuller (and fewer)
                // requests, which lowers the per-MiB cost of whatever the proxy does per request.
                double threadCpuNanos = after.threadCpuNanos() - before.threadCpuNanos();
                double allocated = after.allocatedBytes() - before.allocatedBytes();
                log("%s mode, %.0f MiB in %.0f Produce requests (%.1f KiB each): proxy threads %.3f ms CPU/MiB "
                                + "(%.1f us/request), whole process %.3f ms/MiB, %.1f KiB allocated/MiB (%.0f B/request); "
                                + "produce p50 %.2f ms, p99 %.2f ms; recording %s", mode, mib, requests,
                        mib * 1024 / requests, threadCpuNanos / 1e6 / mib, threadCpuNanos / 1e3 / requests,
                        (after.cpuNanos() - before.cpuNanos()) / 1e6 / mib, allocated / 1024.0 / mib,
                        allocated / requests, latency.p50(), latency.p99(), recording);
                log("event loops alone: %.1f us CPU and %.0f B allocated per Produce request",
                        (loopsAfter.cpuNanos() - loopsBefore.cpuNanos()) / 1e3 / requests,
                        (loopsAfter.allocatedBytes() - loopsBefore.allocatedBytes()) / requests);
            }
        }
        System.exit(0);
    }

    /** Produce requests the proxy has answered, from its Prometheus page. */
    private static double produceRequests(ProxyProcess proxy) throws Exception {
        String page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(proxy.metrics()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        double total = 0;
        for (String line : page.split("\n")) {
            if (line.startsWith("kafscale_proxy_requests_seconds_count{") && line.contains("api=\"Produce\"")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    private static void jcmd(long pid, String... command) throws Exception {
        List<String> line = new ArrayList<>(List.of("jcmd", Long.toString(pid)));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (process.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", line) + " failed: " + output);
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf("[profile] " + format + "%n", args);
    }
}
