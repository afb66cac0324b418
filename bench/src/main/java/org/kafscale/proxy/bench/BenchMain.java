package org.kafscale.proxy.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.KroxyliciousProcess;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxySampler;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.BenchReport;
import org.kafscale.proxy.bench.report.MarkdownTable;
import org.kafscale.proxy.bench.report.HtmlReport;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.report.Timeline;
import org.kafscale.proxy.bench.workload.LfsUpload;
import org.kafscale.proxy.testkit.TestCertificates;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The side-by-side benchmark (issue 7): a 3-broker cluster (with an S3 server) in one JVM, the
 * proxy in more (advertise modes {@code single}, {@code brokers} and, on a build that has it,
 * {@code ports}), the peer proxy Kroxylicious in one of its own (issue 15), and the workloads
 * here, against the brokers directly and through each proxy. Writes the JSON for comparing
 * commits and the table in docs/benchmarks.md. Run it with {@code scripts/bench.sh}.
 */
public final class BenchMain {
    private static final long RETAINED_BYTES_PER_PARTITION = 256L * 1024 * 1024;
    private static final Duration LATENCY_RETENTION = Duration.ofSeconds(30);
    private static final Duration LATENCY_SEGMENT = Duration.ofSeconds(30);
    private static final Duration CLUSTER_START = Duration.ofMinutes(3);
    private static final String BUCKET = "bench-lfs";

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.fromSystemProperties();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Path logs = settings.resultsDir().resolve("logs");
        List<Row> rows;
        Map<String, String> described = new LinkedHashMap<>(settings.describe());
        Timeline timeline = new Timeline();
        boolean withTls = settings.runs("tls") && settings.runs("throughput");
        List<String> clusterArgs = withTls ? List.of("tls", logs.resolve("tls-certificates").toString()) : List.of();
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of(withTls ? "-Xmx4g" : "-Xmx3g", "-XX:+UseG1GC"),
                ClusterMain.class.getName(), clusterArgs, Map.of(), logs.resolve("cluster.log"),
                line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(CLUSTER_START).split(" ");
            String bootstrap = ready[1];
            S3Target s3 = new S3Target(java.net.URI.create(ready[2]), ready[3], ready[4], BUCKET);
            Suite.log("cluster at %s, S3 at %s", bootstrap, s3.endpoint());
            createTopics(bootstrap, Map.of(), settings.partitions());
            Optional<TlsCluster> tlsCluster = withTls ? Optional.of(TlsCluster.of(ready)) : Optional.empty();
            if (tlsCluster.isPresent()) {
                Suite.log("TLS cluster at %s", tlsCluster.get().bootstrap());
                createTopics(tlsCluster.get().bootstrap(), tlsCluster.get().clientSecurity(), settings.partitions());
            }
            try (S3Client s3Client = s3.client()) {
                s3Client.createBucket(b -> b.bucket(BUCKET));
                try (Processes processes = new Processes()) {
                    ProxyProcess single = processes.add(
                            ProxyProcess.start("single", bootstrap, s3, settings.proxyJvmOptions(), logs));
                    List<ProxyProcess> ours = new ArrayList<>(List.of(single,
                            processes.add(ProxyProcess.start("brokers", bootstrap, s3, List.of(), logs))));
                    Optional<String> noPorts = ProxyProcess.rejects("ports", bootstrap);
                    if (noPorts.isPresent()) {
                        // Another change brings port-per-broker mode; until it is merged, say why it is missing.
                        Suite.log("no ports-mode route: this build's proxy refuses KAFSCALE_PROXY_ADVERTISE_MODE=ports (%s)",
                                noPorts.get());
                        described.put("ports mode", "not in this build (" + noPorts.get() + ")");
                    } else {
                        ours.add(processes.add(ProxyProcess.start("ports", bootstrap, s3, List.of(), logs)));
                    }
                    List<Route> ourRoutes = new ArrayList<>();
                    Map<Route, ProxyCounters> counters = new LinkedHashMap<>();
                    for (ProxyProcess proxy : ours) {
                        Route route = Route.ourProxy(proxy.mode(), proxy.bootstrap());
                        ourRoutes.add(route);
                        counters.put(route, processes.add(ProxyCounters.attach(proxy)));
                    }
                    Optional<Route> peer = Optional.empty();
                    if (settings.hasPeer()) {
                        KroxyliciousProcess kroxylicious = processes.add(KroxyliciousProcess.start(
                                settings.kroxyliciousClasspath(), bootstrap, ClusterMain.BROKERS, logs));
                        peer = Optional.of(new Route("Kroxylicious", kroxylicious.bootstrap(), true));
                        counters.put(peer.get(), processes.add(ProxyCounters.attach(kroxylicious)));
                        described.put("peer", "Kroxylicious 0.12.0, passthrough, port per broker");
                    } else {
                        Suite.log("no Kroxylicious route: -Dbench.kroxyliciousClasspath is not set (scripts/bench.sh sets it)");
                        described.put("peer", "none (run through scripts/bench.sh to have Kroxylicious)");
                    }
                    ourRoutes.forEach(r -> Suite.log("%s at %s", r.name(), r.bootstrap()));
                    peer.ifPresent(r -> Suite.log("%s at %s", r.name(), r.bootstrap()));
                    Route direct = new Route("direct", bootstrap, false);
                    Optional<TlsCost.Routes> tlsRoutes = Optional.empty();
                    if (tlsCluster.isPresent()) {
                        tlsRoutes = Optional.of(tlsCluster.get().routes(direct, processes, s3, logs));
                        described.put("TLS", "TLS 1.3 (the JDK's default suite), an EC P-256 certificate; the TLS "
                                + "cluster's brokers replicate over TLS too");
                    }
                    Map<String, ProxyCounters> sampled = new LinkedHashMap<>();
                    counters.forEach((route, proxy) -> sampled.put(route.name(), proxy));
                    try (ProxySampler sampler = ProxySampler.start(sampled, timeline)) {
                        rows = new Suite(settings, direct, ourRoutes, peer, counters,
                                new LfsUpload(single.lfs(), s3Client, BUCKET), tlsRoutes, timeline).run();
                    }
                }
            }
        }
        BenchReport report = new BenchReport(settings.command(), started.toString(), settings.commit(),
                Environment.describe(), described, rows);
        write(report, settings, timeline);
        System.exit(0);
    }

    /**
     * The second cluster of {@link ClusterMain}, its brokers on TLS, as the rest of its READY line
     * describes it, and the proxies of the TLS rows.
     */
    private record TlsCluster(String bootstrap, String caFile, String trustStore, String serverChain,
                              String serverKey) {
        static TlsCluster of(String[] ready) {
            return new TlsCluster(ready[5], ready[6], ready[7], ready[8], ready[9]);
        }

        /** What a Kafka client sets to reach a TLS listener this run made (the cluster's or a proxy's). */
        Map<String, Object> clientSecurity() {
            return Map.of("security.protocol", "SSL", "ssl.truststore.location", trustStore,
                    "ssl.truststore.password", TestCertificates.PASSWORD, "ssl.truststore.type", "PKCS12");
        }

        /**
         * Starts two proxies in {@code single} mode, both with TLS on their listener: one in front
         * of the plaintext brokers ({@code plaintextDirect}'s), one in front of this cluster over
         * TLS, its hostname verified.
         */
        TlsCost.Routes routes(Route plaintextDirect, Processes processes, S3Target s3, Path logs) throws Exception {
            Map<String, String> listenerTls = Map.of("KAFSCALE_PROXY_TLS_ENABLED", "true",
                    "KAFSCALE_PROXY_TLS_CERT_FILE", serverChain, "KAFSCALE_PROXY_TLS_KEY_FILE", serverKey);
            ProxyProcess atEdge = processes.add(ProxyProcess.start("single", plaintextDirect.bootstrap(), s3, List.of(),
                    listenerTls, ProxyProcess.Ports.free(), "proxy-tls-listener", logs));
            Map<String, String> bothSides = new LinkedHashMap<>(listenerTls);
            bothSides.put("KAFSCALE_PROXY_BACKEND_TLS_ENABLED", "true");
            bothSides.put("KAFSCALE_PROXY_BACKEND_TLS_CA_FILE", caFile);
            ProxyProcess throughout = processes.add(ProxyProcess.start("single", bootstrap, s3, List.of(), bothSides,
                    ProxyProcess.Ports.free(), "proxy-tls-both", logs));
            Route tlsAtProxy = new Route("proxy, single mode, TLS listener", atEdge.bootstrap(), true, clientSecurity());
            Route tlsBothSides = new Route("proxy, single mode, TLS both sides", throughout.bootstrap(), true,
                    clientSecurity());
            return new TlsCost.Routes(plaintextDirect, tlsAtProxy, new Route("direct, TLS", bootstrap, false,
                    clientSecurity()), tlsBothSides, Map.of(tlsAtProxy, processes.add(ProxyCounters.attach(atEdge)),
                    tlsBothSides, processes.add(ProxyCounters.attach(throughout))));
        }
    }

    /** What the run started, closed in reverse order of starting (counters before their proxy). */
    private static final class Processes implements AutoCloseable {
        private final Deque<AutoCloseable> started = new ArrayDeque<>();

        <T extends AutoCloseable> T add(T process) {
            started.push(process);
            return process;
        }

        @Override
        public void close() throws Exception {
            Exception first = null;
            while (!started.isEmpty()) {
                try {
                    started.pop().close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /**
     * Every topic but the latency workload's keeps at most {@link #RETAINED_BYTES_PER_PARTITION}
     * per partition: the rounds produce tens of GiB (five routes, seven rounds), which filled the
     * disk of a machine here, while a consume round reads at most 400,000 KiB records, under 40 MiB
     * per partition. The latency topic is bounded by time instead ({@link #boundedInTime}).
     */
    private static void createTopics(String bootstrap, Map<String, Object> clientSecurity, int partitions)
            throws Exception {
        Map<String, Object> config = new LinkedHashMap<>(clientSecurity);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(config)) {
            admin.createTopics(List.of(
                    bounded(new NewTopic(Suite.THROUGHPUT_TOPIC, partitions, (short) 3)),
                    boundedInTime(new NewTopic(Suite.LATENCY_TOPIC, partitions, (short) 3)),
                    bounded(new NewTopic(Suite.E2E_TOPIC, partitions, (short) 3)),
                    bounded(new NewTopic(Suite.LFS_TOPIC, 1, (short) 3)))).all().get();
        }
    }

    static NewTopic bounded(NewTopic topic) {
        return topic.configs(Map.of("retention.bytes", String.valueOf(RETAINED_BYTES_PER_PARTITION),
                "segment.bytes", String.valueOf(32 * 1024 * 1024)));
    }

    /**
     * The latency topic: no byte bound; its segments roll and go by time. Under the byte bound
     * (32 MiB segments) each partition, written at half load here (about 4 MiB/s each, the routes'
     * runs back to back), rolled a segment every 8 s and, once full, the brokers deleted the oldest
     * as often, during the measured runs; direct's own p99 moved by 25 ms between rounds
     * (docs/benchmarks.md, "Produce latency at half load"). Rolled every {@link #LATENCY_SEGMENT},
     * a partition rolls about four times less often. What is kept stays bounded: a segment past
     * {@link #LATENCY_RETENTION} goes at the next retention check (10 s) and its file a second
     * later ({@code file.delete.delay.ms}, a minute by default), so at most about 70 s of the runs'
     * records are kept, some 10 GiB with the replicas.
     */
    private static NewTopic boundedInTime(NewTopic topic) {
        return topic.configs(Map.of("retention.ms", String.valueOf(LATENCY_RETENTION.toMillis()),
                "segment.ms", String.valueOf(LATENCY_SEGMENT.toMillis()),
                "file.delete.delay.ms", String.valueOf(Duration.ofSeconds(1).toMillis())));
    }

    private static void write(BenchReport report, BenchSettings settings, Timeline timeline) throws Exception {
        String stamp = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC)
                .format(Instant.parse(report.date()));
        Files.createDirectories(settings.resultsDir());
        Path json = settings.resultsDir().resolve(stamp + "-" + report.commit() + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        Path html = settings.resultsDir().resolve(stamp + "-" + report.commit() + ".html");
        HtmlReport.write(html, "Benchmark " + report.date() + ", commit " + report.commit(), report.verdicts(),
                timeline);
        String table = MarkdownTable.render(report);
        MarkdownTable.replaceIn(settings.document(), table);
        System.out.println();
        System.out.println(table);
        Suite.log("wrote %s, %s and the table in %s", json, html, settings.document());
    }
}
