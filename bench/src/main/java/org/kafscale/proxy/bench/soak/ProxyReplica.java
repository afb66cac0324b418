package org.kafscale.proxy.bench.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.Timeline;

/**
 * One proxy replica of the soak, in a JVM of its own with a capped heap, always on the same ports
 * (so a replica restarted by the chaos is the same address to its clients). It samples its own
 * process (heap after a collection, Netty direct memory, file descriptors, threads) per
 * incarnation, for the check that they stay flat.
 */
final class ProxyReplica implements AutoCloseable {
    static final String HEAP = "-Xmx384m";

    /** One sample of the process, {@code seconds} since the soak started. */
    record Sample(double seconds, double heapMib, double directMib, double fds, double threads) {
    }

    private final String name;
    private final String backends;
    private final S3Target s3;
    private final Map<String, String> settings;
    private final Path logs;
    private final ProxyProcess.Ports ports = ProxyProcess.Ports.free();
    private final List<List<Sample>> incarnations = new ArrayList<>();
    private ProxyProcess process;
    private ProxyCounters counters;

    ProxyReplica(String name, String backends, S3Target s3, Map<String, String> settings, Path logs) {
        this.name = name;
        this.backends = backends;
        this.s3 = s3;
        this.settings = Map.copyOf(settings);
        this.logs = logs;
    }

    synchronized void start() throws Exception {
        // Paranoid leak detection: every buffer is tracked, and a leak is a line in the replica's log.
        process = ProxyProcess.start("single", backends, s3, List.of(HEAP, "-Dio.netty.leakDetection.level=paranoid"),
                settings, ports, name, logs);
        counters = ProxyCounters.attach(process);
        incarnations.add(new ArrayList<>());
    }

    /** SIGTERM (the proxy drains), then the same replica again on the same ports. */
    synchronized void restart() throws Exception {
        stop();
        start();
    }

    synchronized void stop() throws IOException {
        if (counters != null) {
            counters.close();
            counters = null;
        }
        if (process != null) {
            process.close();
            process = null;
        }
    }

    String name() {
        return name;
    }

    String bootstrap() {
        return "127.0.0.1:" + ports.kafka();
    }

    java.net.URI lfs() {
        return java.net.URI.create("http://127.0.0.1:" + ports.lfs());
    }

    Path log() {
        return logs.resolve(name + ".log");
    }

    /** Samples the running incarnation, into its list and onto the timeline. */
    synchronized void sample(double seconds, Timeline timeline, boolean collectFirst) {
        if (process == null) {
            return;
        }
        try {
            double heap = (collectFirst ? counters.heapUsedAfterGc() : counters.heapUsed()) / 1048576.0;
            double direct = counters.gauge("kafscale_proxy_netty_direct_memory_bytes").orElse(-1) / 1048576.0;
            double fds;
            try (var listing = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
                fds = listing.count();
            }
            double threads = counters.threadCount();
            if (collectFirst) {
                incarnations.get(incarnations.size() - 1).add(new Sample(seconds, heap, direct, fds, threads));
                timeline.record("Proxy heap after GC", "MiB", name, heap);
            } else {
                timeline.record("Proxy heap in use", "MiB", name, heap);
            }
            timeline.record("Proxy Netty direct memory", "MiB", name, direct);
            timeline.record("Proxy file descriptors", "fds", name, fds);
            timeline.record("Proxy threads", "threads", name, threads);
            counters.gauge("kafscale_proxy_client_connections")
                    .ifPresent(v -> timeline.record("Client connections", "connections", name, v));
        } catch (Exception e) {
            // stopping or restarting: a gap in the charts
        }
    }

    /** The samples (taken after a collection) of each incarnation, oldest first. */
    synchronized List<List<Sample>> incarnations() {
        List<List<Sample>> copy = new ArrayList<>();
        incarnations.forEach(i -> copy.add(List.copyOf(i)));
        return copy;
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
